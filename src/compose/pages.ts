import { randomUUID } from 'node:crypto';
import type { AnalyticsService } from '../analytics/service.js';
import type { AuditLog } from '../audit/service.js';
import { createCreatorStats } from '../bio/analytics-stats.js';
import { createBioRepo } from '../bio/repo.js';
import { createBioService } from '../bio/service.js';
import type { Config } from '../config.js';
import { createMediaKitService } from '../mediakit/service.js';
import { createStatsRepo } from '../stats/repo.js';
import { createPublicStatsService } from '../stats/service.js';
import type { Store } from '../store/database.js';

/** The creator's public pages: the bio page, the media kit and public link stats, all read from analytics. */
export function composePages(
  config: Config,
  store: Store,
  analytics: AnalyticsService,
  audit: AuditLog,
  now: () => Date,
) {
  const stats = createCreatorStats({ analytics, store });
  const repo = createBioRepo(store);
  const bio = createBioService({
    repo,
    stats,
    baseUrl: config.baseUrl,
    flagsOff: config.flagsOff,
    now,
    uuid: randomUUID,
    audit,
  });
  const mediaKit = createMediaKitService({
    repo,
    bio,
    stats,
    flagsOff: config.flagsOff,
    now,
    audit,
  });
  const publicStats = createPublicStatsService({ repo: createStatsRepo(store), analytics });
  return { bio, mediaKit, publicStats };
}
