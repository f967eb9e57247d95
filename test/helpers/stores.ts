import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';

/**
 * Real databases for tests: a fresh SQLite file per store, and on PostgreSQL (when DATABASE_URL_TEST is
 * set) a fresh schema per store, dropped afterwards.
 */

export interface StoreKind {
  name: 'sqlite' | 'postgres';
  /** Why the kind is skipped here, or null when it runs. */
  skipReason: string | null;
  create(): Promise<TestStore>;
}

export interface TestStore {
  store: Store;
  url: string;
  schema?: string;
  dispose(): Promise<void>;
}

const postgresUrl = process.env.DATABASE_URL_TEST;

export const sqliteKind: StoreKind = {
  name: 'sqlite',
  skipReason: null,
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'linkhop-test-'));
    const url = `sqlite:${join(dir, 'test.db')}`;
    const store = openStore(url);
    await migrateToLatest(store);
    return {
      store,
      url,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const postgresKind: StoreKind = {
  name: 'postgres',
  skipReason: postgresUrl ? null : 'DATABASE_URL_TEST is not set: PostgreSQL store tests skipped',
  async create() {
    if (!postgresUrl) throw new Error('DATABASE_URL_TEST is not set');
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const store = openStore(postgresUrl, { schema, maxConnections: 4 });
    await despiteSchemaDrops(() => migrateToLatest(store));
    return {
      store,
      url: postgresUrl,
      schema,
      async dispose() {
        await store.close();
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`drop schema ${schema} cascade`);
        await client.end();
      },
    };
  },
};

/**
 * Runs a migration on PostgreSQL again when it failed on another schema: Kysely's migrator introspects
 * every schema, and a parallel suite dropping its own schema mid-scan makes that scan fail with "does not
 * exist". A result carrying an error (Migrator.migrateTo) counts as a failure.
 */
export async function despiteSchemaDrops<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await run();
      const error = (result as { error?: unknown } | null | undefined)?.error;
      if (error !== undefined) throw error;
      return result;
    } catch (error) {
      if (attempt >= 5 || !/does not exist/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

export const storeKinds: StoreKind[] = [sqliteKind, postgresKind];

/** Says once, in the test output, which store suites are skipped and why. */
export function announceSkips(): void {
  for (const kind of storeKinds) {
    if (kind.skipReason) console.warn(`[linkhop tests] ${kind.skipReason}`);
  }
}
