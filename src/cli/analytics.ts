import { parseArgs } from 'node:util';
import { backfill } from '../analytics/clickhouse/backfill.js';
import { createBackfillSource } from '../analytics/clickhouse/backfill-source.js';
import { createClickhouseClient } from '../analytics/clickhouse/client.js';
import { createGroupHistory } from '../analytics/clickhouse/group-history.js';
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
       linkhop analytics verify [--from YYYY-MM-DD] [--to YYYY-MM-DD]

Both read DATABASE_URL (the main database, whose analytics are copied or compared) and ANALYTICS_URL
(the ClickHouse database, clickhouse://user:pass@host:8123/db).`;

/** `linkhop analytics backfill|verify`: moving analytics from the main database to ClickHouse. */
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
  if (values.to !== 'clickhouse') throw new CliError(`backfill needs --to clickhouse\n\n${USAGE}`);
  const chunkClicks = positive(values['chunk-clicks'], '--chunk-clicks');
  const maxChunks = positive(values['max-chunks'], '--max-chunks');
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
        ...(chunkClicks ? { chunkClicks } : {}),
        ...(maxChunks ? { maxChunks } : {}),
        // Progress for the person watching; stdout keeps the one JSON line a script reads.
        log: (line) => process.stderr.write(`${line}\n`),
      });
    } finally {
      await client.close();
    }
  });
  printJson({ backfilled: report.complete, ...report });
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
