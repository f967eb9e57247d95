import { parseArgs } from 'node:util';
import { backfill } from '../analytics/clickhouse/backfill.js';
import { createBackfillSource } from '../analytics/clickhouse/backfill-source.js';
import { createClickhouseClient } from '../analytics/clickhouse/client.js';
import { createGroupHistory } from '../analytics/clickhouse/group-history.js';
import { restore } from '../analytics/clickhouse/restore.js';
import { createRestoreSource } from '../analytics/clickhouse/restore-source.js';
import { tablesOf } from '../analytics/clickhouse/schema.js';
import { openClickhouseAnalytics } from '../analytics/clickhouse/store.js';
import { verify } from '../analytics/clickhouse/verify.js';
import { DAY_MS } from '../analytics/model.js';
import { createAnalyticsRepo } from '../analytics/repo.js';
import { parseConfig } from '../config.js';
import { parseClickhouseUrl } from '../store/clickhouse-url.js';
import { migrateToLatest, openStore, type Store } from '../store/database.js';
import { CliError, printJson } from './context.js';

const USAGE = `usage: linkhop analytics backfill --to clickhouse [--chunk-clicks N] [--max-chunks N]
       linkhop analytics backfill --to main [--chunk-clicks N] [--max-chunks N]
       linkhop analytics verify [--from YYYY-MM-DD] [--to YYYY-MM-DD]

All read DATABASE_URL (the main database) and ANALYTICS_URL (the ClickHouse database,
clickhouse://user:pass@host:8123/db). --to clickhouse copies the main database's analytics there;
--to main is the way back: it copies what the service wrote to ClickHouse into the main database, and
runs only once every instance is back on the main database (restarted without ANALYTICS_URL), so that
ClickHouse takes no more writes.`;

/** `linkhop analytics backfill|verify`: moving analytics between the main database and ClickHouse. */
export async function runAnalytics(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'backfill') return runBackfill(rest);
  if (sub === 'verify') return runVerify(rest);
  throw new CliError(USAGE);
}

/** The main database (migrated) and the ClickHouse store, for one command; both closed after. */
async function withBoth<T>(
  run: (
    main: Store,
    clickhouse: Awaited<ReturnType<typeof openClickhouseAnalytics>>,
    url: string,
  ) => Promise<T>,
): Promise<T> {
  const config = parseConfig(process.env, 'hosted');
  if (!config.analyticsUrl)
    throw new CliError(
      'ANALYTICS_URL is not set: name the ClickHouse database to copy to or compare with ' +
        '(ANALYTICS_URL=clickhouse://user:pass@host:8123/db). Nothing was done.',
    );
  const main = openStore(config.databaseUrl);
  try {
    await migrateToLatest(main);
    const clickhouse = await openClickhouseAnalytics(config.analyticsUrl, main);
    try {
      return await run(main, clickhouse, config.analyticsUrl);
    } finally {
      await clickhouse.close();
    }
  } finally {
    await main.close();
  }
}

const positive = (text: string | undefined, name: string): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(text)) throw new CliError(`${name} takes a positive whole number, not ${text}`);
  return Number(text);
};

async function runBackfill(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      to: { type: 'string' },
      'chunk-clicks': { type: 'string' },
      'max-chunks': { type: 'string' },
    },
  });
  if (values.to !== 'clickhouse' && values.to !== 'main')
    throw new CliError(`backfill needs --to clickhouse or --to main\n\n${USAGE}`);
  const chunkClicks = positive(values['chunk-clicks'], '--chunk-clicks');
  const maxChunks = positive(values['max-chunks'], '--max-chunks');
  const sizes = { ...(chunkClicks ? { chunkClicks } : {}), ...(maxChunks ? { maxChunks } : {}) };
  // Progress for the person watching; stdout keeps the one JSON line a script reads.
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (values.to === 'main') return runRestore(sizes, log);
  const report = await withBoth(async (main, clickhouse, url) => {
    const parsed = parseClickhouseUrl(url);
    const client = createClickhouseClient({ ...parsed, requestTimeoutMs: 300_000 });
    try {
      return await backfill({
        source: createBackfillSource(main),
        store: clickhouse.store,
        groups: createGroupHistory(main),
        client,
        tables: tablesOf(parsed.database),
        ...sizes,
        log,
      });
    } finally {
      await client.close();
    }
  });
  printJson({ backfilled: report.complete, ...report });
}

/**
 * `backfill --to main`: ClickHouse is only read (and its `restore_checkpoint` written), never set up:
 * a database without the service's tables is refused rather than made.
 */
async function runRestore(
  sizes: { chunkClicks?: number; maxChunks?: number },
  log: (line: string) => void,
): Promise<void> {
  const config = parseConfig(process.env, 'hosted');
  if (!config.analyticsUrl)
    throw new CliError(
      'ANALYTICS_URL is not set: name the ClickHouse database to copy back from ' +
        '(ANALYTICS_URL=clickhouse://user:pass@host:8123/db). Nothing was done.',
    );
  const parsed = parseClickhouseUrl(config.analyticsUrl);
  const main = openStore(config.databaseUrl);
  // Not bound to the database (every statement names it), so a missing one is a refusal, not an error.
  const client = createClickhouseClient({ ...parsed, requestTimeoutMs: 300_000, useDatabase: false });
  try {
    await migrateToLatest(main);
    const source = createRestoreSource(client, tablesOf(parsed.database));
    if (!(await source.hasTables()))
      throw new CliError(
        `ClickHouse database ${parsed.database} has no linkhop clicks or outcomes tables: nothing to copy back.`,
      );
    const report = await restore({
      source,
      store: createAnalyticsRepo(main),
      client,
      database: parsed.database,
      ...sizes,
      log,
    });
    printJson({ restored: report.complete, ...report });
    if (report.clickhouseChanged) process.exitCode = 1;
  } finally {
    await client.close();
    await main.close();
  }
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function dayOf(text: string, name: string): number {
  const ms = ISO_DAY.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms)) throw new CliError(`${name} takes a day as YYYY-MM-DD, not ${text}`);
  return ms / DAY_MS;
}

async function runVerify(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } } });
  // Without --from, the whole history ClickHouse can hold (its Date starts in 1970).
  const window = {
    from: values.from === undefined ? 0 : dayOf(values.from, '--from'),
    to: values.to === undefined ? Math.floor(Date.now() / DAY_MS) : dayOf(values.to, '--to'),
  };
  if (window.from > window.to) throw new CliError('--from is after --to');
  const report = await withBoth((main, clickhouse) =>
    verify({ main, sql: createAnalyticsRepo(main), clickhouse: clickhouse.store, window }),
  );
  for (const row of report.differences)
    process.stderr.write(
      `differs: link ${row.linkId} (${row.slug || 'no slug'}) sql ${row.sql} clickhouse ${row.clickhouse}\n`,
    );
  const equal = report.differences.length === 0;
  printJson({ equal, ...report, differences: report.differences.slice(0, 1000) });
  if (!equal) process.exitCode = 1;
}
