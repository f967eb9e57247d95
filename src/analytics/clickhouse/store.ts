import { parseClickhouseUrl } from '../../store/clickhouse-url.js';
import type { Store } from '../../store/database.js';
import type { AnalyticsStore } from '../repo.js';
import { type ClickhouseClient, createClickhouseClient } from './client.js';
import { createGroupHistory } from './group-history.js';
import { createClickhouseRawReads } from './raw-reads.js';
import { createClickhouseReads } from './reads.js';
import { applySchema, tablesOf } from './schema.js';
import { createScopeRepo } from './scope-repo.js';
import { createClickhouseWrites } from './write.js';

/**
 * The analytics store on ClickHouse (docs/architecture.md, "Beyond one PostgreSQL"): the same
 * `AnalyticsStore` as the SQL one, the same answers, clicks and outcomes in ClickHouse; links, folders,
 * tags and the webhook outbox stay in the main database (`main`), which resolves scopes and slugs.
 */
export function createClickhouseAnalyticsStore(deps: {
  client: ClickhouseClient;
  database: string;
  main: Store;
}): AnalyticsStore {
  const tables = tablesOf(deps.database);
  const scopes = createScopeRepo(deps.main);
  const history = createGroupHistory(deps.main);
  return {
    ...createClickhouseWrites(deps.client, tables, deps.main, history),
    ...createClickhouseReads(deps.client, tables, scopes, history),
    ...createClickhouseRawReads(deps.client, tables, scopes),
  };
}

/**
 * ANALYTICS_URL to a ready store: its database and tables created when missing (idempotent), then the
 * store over a client bound to that database. `close` ends the client's connections.
 */
export async function openClickhouseAnalytics(
  url: string,
  main: Store,
  options: { requestTimeoutMs?: number } = {},
): Promise<{ store: AnalyticsStore; close(): Promise<void> }> {
  const parsed = parseClickhouseUrl(url);
  const setup = createClickhouseClient({ ...parsed, ...options, useDatabase: false });
  try {
    await applySchema(setup, tablesOf(parsed.database));
  } finally {
    await setup.close();
  }
  const client = createClickhouseClient({ ...parsed, ...options });
  return {
    store: createClickhouseAnalyticsStore({ client, database: parsed.database, main }),
    close: () => client.close(),
  };
}
