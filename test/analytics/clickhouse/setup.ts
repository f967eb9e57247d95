import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { openClickhouseAnalytics } from '../../../src/analytics/clickhouse/store.js';
import type { AnalyticsStore } from '../../../src/analytics/repo.js';
import { parseClickhouseUrl } from '../../../src/store/clickhouse-url.js';
import type { Store } from '../../../src/store/database.js';
import type { TestClickhouse } from '../../helpers/clickhouse.js';
import { childEnv } from '../../helpers/env.js';

/** Every dimension the analytics stores answer: what the suites comparing ClickHouse to SQL ask for. */
export const ALL_DIMENSIONS = [
  'total',
  'bot',
  'country',
  'device',
  'platform',
  'referrer',
  'hour',
  'link',
  'source',
  'variant',
  'outcome',
  'platform_outcome',
  'variant_outcome',
  'cell',
  'cell_outcome',
];

/** A fresh database on the file's server, its schema applied through the store's own start. */
export async function openTestAnalytics(ch: TestClickhouse, main: Store) {
  const database = `t_${Math.random().toString(16).slice(2, 14)}`;
  const url = ch.urlFor(database);
  const opened = await openClickhouseAnalytics(url, main);
  const client = createClickhouseClient(parseClickhouseUrl(url));
  return {
    database,
    url,
    store: opened.store as AnalyticsStore,
    /** A second client on the database, for inspection and for faults. */
    client,
    async count(sql: string): Promise<number> {
      const [row] = await client.rows<{ n: string }>(sql);
      return Number(row?.n ?? 0);
    },
    async close() {
      await opened.close();
      await client.close();
    },
  };
}

const CLI = join(import.meta.dirname, '../../../dist/cli/main.js');

/**
 * The built `linkhop analytics ...` (run `npx tsc -p tsconfig.build.json` first) with the main database
 * and, when given, ANALYTICS_URL: its status, stderr and the JSON line of its stdout.
 */
export function analyticsCli(databaseUrl: string, analyticsUrl: string | null, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, 'analytics', ...args], {
    env: childEnv({ DATABASE_URL: databaseUrl, ...(analyticsUrl ? { ANALYTICS_URL: analyticsUrl } : {}) }),
    encoding: 'utf8',
  });
  const last = result.stdout.trim().split('\n').filter(Boolean).pop();
  return { status: result.status, stderr: result.stderr, json: last ? JSON.parse(last) : null };
}
