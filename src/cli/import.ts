import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { featuresOf } from '../accounts/plans.js';
import { createAccountRepo } from '../accounts/repo.js';
import { createAccountService } from '../accounts/service.js';
import { parseConfig } from '../config.js';
import { createTxtLookup } from '../domains/dns-txt.js';
import { createDomainService } from '../domains/service.js';
import { composeImports } from '../imports/compose.js';
import type { ImportRow } from '../imports/repo.js';
import { IMPORT_LEASE_MS } from '../imports/worker.js';
import { createPreviewService } from '../links/preview.js';
import { createLinkRepo } from '../links/repo.js';
import { createLinkService } from '../links/service.js';
import { createGuardedFetcher } from '../net/guarded-fetch.js';
import { loadPlatformTable } from '../platform-table.js';
import { resolveSessionSecret } from '../session-secret.js';
import { migrateToLatest, openStore } from '../store/database.js';
import { createSecretBox } from '../webhooks/secret-box.js';
import { createWebhookService } from '../webhooks/service.js';
import { printJson } from './context.js';
import { parseImportArgs } from './import-args.js';

/**
 * `linkhop import <source> --org ORG_ID ...`: runs one import in this process, against DATABASE_URL,
 * through the same services as the server (links are created by the links service, so slug rules, the
 * plan's cap and link.created webhooks apply). The import is held by this process from the start; if it
 * is interrupted, a running server resumes it at the last saved page.
 */
export async function runImport(args: string[]): Promise<void> {
  const { orgId, input } = parseImportArgs(args);
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  const logger = pino({ level: 'error' }, pino.destination(2));
  const fetcher = createGuardedFetcher({ allowPrivate: config.allowPrivateWebhookTargets });
  try {
    await migrateToLatest(store);
    const now = () => new Date();
    const accounts = createAccountService({ repo: createAccountRepo(store), now, uuid: randomUUID });
    const { tier } = await accounts.getOrganization(orgId);
    const ctx = { orgId, tier, features: featuresOf(tier) };
    const secretBox = createSecretBox({ current: resolveSessionSecret(config) });
    const webhooks = createWebhookService({
      store,
      fetcher,
      secretBox,
      now,
      uuid: randomUUID,
      allowPrivate: config.allowPrivateWebhookTargets,
    });
    const links = createLinkService({
      repo: createLinkRepo(store),
      table: loadPlatformTable(config.platformsFile),
      baseUrl: config.baseUrl,
      now,
      uuid: randomUUID,
      randomBytes: (size) => randomBytes(size),
      // A new (host, slug) was never served, so no instance holds it in cache: nothing to drop.
      invalidate: () => undefined,
      // link.created deliveries are queued with each link; a running server's worker sends them.
      events: { emitIn: webhooks.emitIn, nudge: () => undefined },
      reapplyLinkCap: async (link) => {
        await accounts.reapplyLinkCap(link.orgId, link.tier);
      },
    });
    const previews = createPreviewService({
      store,
      links,
      scrape: async () => ({ title: null, description: null, image: null }),
      now,
      onChange: () => undefined,
    });
    const domains = createDomainService({
      store,
      baseUrl: config.baseUrl,
      lookupTxt: createTxtLookup(config.dnsResolver),
      now,
      uuid: randomUUID,
      randomToken: () => randomBytes(16).toString('hex'),
    });
    const imports = composeImports({
      store,
      accounts,
      links,
      previews,
      domains,
      secretBox,
      logger,
      config,
      startWorker: false,
    });
    try {
      const token = randomUUID();
      const until = new Date(Date.now() + IMPORT_LEASE_MS).toISOString();
      const { id } = await imports.service.start(ctx, input, { claimToken: token, claimedUntil: until });
      const bar = progressBar();
      const release = () => void imports.worker.release(id, token).finally(() => process.exit(130));
      process.once('SIGINT', release);
      const claimed = await imports.repo.findById(id);
      if (claimed) await imports.worker.run(claimed, token, bar.update);
      process.off('SIGINT', release);
      bar.end();
      const result = await imports.service.get(ctx, id);
      printJson(result);
      if (result.status === 'failed') process.exitCode = 1;
    } finally {
      await imports.close();
    }
  } finally {
    await fetcher.close();
    await store.close();
  }
}

/** A bar on stderr when it is a terminal; nothing otherwise (scripts read the one JSON line). */
function progressBar(): { update: (row: ImportRow) => void; end: () => void } {
  const tty = process.stderr.isTTY === true;
  let drawn = false;
  return {
    update(row) {
      if (!tty) return;
      const done = row.imported + row.skipped + row.failed;
      const share = row.total > 0 ? Math.min(1, done / row.total) : 0;
      const width = 30;
      const filled = Math.round(share * width);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
      const counts = `${done}/${row.total}  imported ${row.imported}  skipped ${row.skipped}  failed ${row.failed}`;
      process.stderr.write(`\r[${bar}] ${String(Math.round(share * 100)).padStart(3)}%  ${counts}`);
      drawn = true;
    },
    end() {
      if (drawn) process.stderr.write('\n');
    },
  };
}
