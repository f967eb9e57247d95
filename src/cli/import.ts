import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { parseConfig } from '../config.js';
import type { ImportRow } from '../imports/repo.js';
import { IMPORT_LEASE_MS } from '../imports/worker.js';
import { migrateToLatest, openStore } from '../store/database.js';
import { featuresOf } from '../tenancy/plans.js';
import { printJson } from './context.js';
import { parseImportArgs } from './import-args.js';
import { openImportStack } from './import-stack.js';

/**
 * `linkhop import <source> --org ORG_ID ...`: runs one import in this process against DATABASE_URL, with
 * a progress bar on a terminal and the import as one JSON line at the end (exit 1 when it failed). The
 * import is held by this process from the start; interrupted (Ctrl-C), it is handed back at its last
 * saved page and a running server resumes it.
 */
export async function runImport(args: string[]): Promise<void> {
  const { orgId, input } = parseImportArgs(args);
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  const stack = openImportStack(store, config, pino({ level: 'error' }, pino.destination(2)));
  try {
    await migrateToLatest(store);
    const { tier } = await stack.accounts.getOrganization(orgId);
    const ctx = { orgId, tier, features: featuresOf(tier) };
    const { imports } = stack;
    const token = randomUUID();
    const until = new Date(Date.now() + IMPORT_LEASE_MS).toISOString();
    const { id } = await imports.service.start(ctx, input, { claimToken: token, claimedUntil: until });
    const interrupt = () => void imports.worker.release(id, token).finally(() => process.exit(130));
    process.once('SIGINT', interrupt);
    const bar = progressBar();
    const claimed = await imports.repo.findById(id);
    if (claimed) await imports.worker.run(claimed, token, bar.update);
    process.off('SIGINT', interrupt);
    bar.end();
    const result = await imports.service.get(ctx, id);
    printJson(result);
    if (result.status === 'failed') process.exitCode = 1;
  } finally {
    await stack.close();
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
      const filled = Math.round(share * 30);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(30 - filled)}`;
      const counts = `${done}/${row.total}  imported ${row.imported}  skipped ${row.skipped}  failed ${row.failed}`;
      process.stderr.write(`\r[${bar}] ${String(Math.round(share * 100)).padStart(3)}%  ${counts}`);
      drawn = true;
    },
    end() {
      if (drawn) process.stderr.write('\n');
    },
  };
}
