import { createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { openClickhouseAnalytics } from '../../../src/analytics/clickhouse/store.js';
import type { AnalyticsStore } from '../../../src/analytics/repo.js';
import { parseClickhouseUrl } from '../../../src/store/clickhouse-url.js';
import type { Store } from '../../../src/store/database.js';
import type { TestClickhouse } from '../../helpers/clickhouse.js';

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
