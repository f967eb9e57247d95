import type { Migration, MigrationProvider } from 'kysely';
import * as engineLinks from './001-engine-links.js';
import * as organizationsLinks from './002-organizations-links.js';
import * as accounts from './003-accounts.js';
import * as linkPowers from './004-link-powers.js';
import * as signingKeys from './005-signing-keys.js';
import * as webhooks from './006-webhooks.js';
import * as linkPreviews from './007-link-previews.js';
import * as analytics from './008-analytics.js';
import * as social from './009-social.js';
import * as bio from './010-bio.js';
import * as audience from './011-audience.js';
import * as clickBlocks from './012-click-blocks.js';
import * as clickBatches from './013-click-batches.js';
import * as domains from './014-domains.js';
import * as groupRollups from './016-group-rollups.js';
import * as clickPartitions from './017-click-partitions.js';
import * as signupRequests from './019-signup-requests.js';
import * as linkExpiry from './020-link-expiry.js';
import * as teams from './021-teams.js';
import * as auditLog from './022-audit-log.js';
import * as imports from './023-imports.js';
import * as rollupFillfactor from './024-rollup-fillfactor.js';
import * as importFairness from './025-import-fairness.js';
import * as keyMakers from './026-key-makers.js';
import * as deploymentFacts from './027-deployment-facts.js';
import * as destinationHealth from './028-destination-health.js';
import * as abTests from './029-ab-tests.js';
import * as sso from './031-sso.js';
import * as bulkActions from './032-bulk-actions.js';
import * as linkGroupHistory from './033-link-group-history.js';

/**
 * One ordered set of migrations for both dialects, listed in code (not read from a folder) so the
 * compiled package and the tests see exactly the same list.
 */
const migrations: Record<string, Migration> = {
  '001-engine-links': engineLinks,
  '002-organizations-links': organizationsLinks,
  '003-accounts': accounts,
  '004-link-powers': linkPowers,
  '005-signing-keys': signingKeys,
  '006-webhooks': webhooks,
  '007-link-previews': linkPreviews,
  '008-analytics': analytics,
  '009-social': social,
  '010-bio': bio,
  '011-audience': audience,
  '012-click-blocks': clickBlocks,
  '013-click-batches': clickBatches,
  '014-domains': domains,
  '016-group-rollups': groupRollups,
  '017-click-partitions': clickPartitions,
  '019-signup-requests': signupRequests,
  '020-link-expiry': linkExpiry,
  '021-teams': teams,
  '022-audit-log': auditLog,
  '023-imports': imports,
  '024-rollup-fillfactor': rollupFillfactor,
  '025-import-fairness': importFairness,
  '026-key-makers': keyMakers,
  '027-deployment-facts': deploymentFacts,
  '028-destination-health': destinationHealth,
  '029-ab-tests': abTests,
  '031-sso': sso,
  '032-bulk-actions': bulkActions,
  '033-link-group-history': linkGroupHistory,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
