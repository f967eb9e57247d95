import { SERVING_STATEMENT_TIMEOUT_MS } from './connections.js';
import { migrateToLatest, openStore, type Store } from './database.js';

/**
 * `linkhop serve`'s store: migrated, then opened to serve. On PostgreSQL the migrations run on a store of
 * their own (one connection, no statement timeout) and the serving store cuts statements off.
 */
export async function openServingStore(url: string, sqliteCacheMb: number): Promise<Store> {
  if (!url.startsWith('postgres')) {
    const store = openStore(url, { sqliteCacheMb });
    await migrateToLatest(store);
    return store;
  }
  const migrating = openStore(url, { maxConnections: 1 });
  try {
    await migrateToLatest(migrating);
  } finally {
    await migrating.close();
  }
  return openStore(url, { statementTimeoutMs: SERVING_STATEMENT_TIMEOUT_MS });
}
