import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import {
  type ConnectionOptions,
  type Dialect,
  openPgPool,
  openSqliteDatabase,
  parseDatabaseUrl,
} from '../store/connections.js';
import { isConnectionError } from '../store/db-errors.js';
import { createDbHealth, type DbHealth } from '../store/db-health.js';

/**
 * The engine's store: its few statements (engine/repo.ts) asked of the driver itself, with the same
 * connections, pragmas, pool and health as the hosted service's store (store/connections.ts), and no
 * Kysely. Loading Kysely cost the engine 6 to 13 MB of its idle RSS (docs/performance.md, "Memory"),
 * against a goal of 60 MB; its migrations still run on Kysely, in a process of their own
 * (store/migrate-apart.ts). A statement is written once, with `?` for its parameters: PostgreSQL gets
 * them numbered. No statement here has a `?` of its own.
 */
export interface EngineStore {
  readonly dialect: Dialect;
  /** The database as last seen by the pool (always up on SQLite): for /health. */
  readonly health: DbHealth;
  /** Runs one statement and answers its rows (none for a write). */
  query<Row>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export function openEngineStore(url: string, options: ConnectionOptions = {}): EngineStore {
  const parsed = parseDatabaseUrl(url);
  if (parsed.dialect === 'sqlite') return sqliteStore(openSqliteDatabase(parsed.path, options.sqliteCacheMb));
  return postgresStore(openPgPool(url, options));
}

function sqliteStore(database: SQLite.Database): EngineStore {
  const statements = new Map<string, SQLite.Statement>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (!statement) {
      statement = database.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
  return {
    dialect: 'sqlite',
    health: createDbHealth(),
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const statement = prepared(text);
      if (statement.reader) return statement.all(...params) as Row[];
      statement.run(...params);
      return [];
    },
    async close() {
      database.close();
    },
  };
}

function postgresStore({ pool, health }: { pool: pg.Pool; health: DbHealth }): EngineStore {
  const numbered = new Map<string, string>();
  const toPostgres = (text: string) => {
    let out = numbered.get(text);
    if (out === undefined) {
      let n = 0;
      out = text.replace(/\?/g, () => `$${++n}`);
      numbered.set(text, out);
    }
    return out;
  };
  return {
    dialect: 'postgres',
    health,
    async query<Row>(text: string, params: readonly unknown[] = []) {
      // connect() without a callback: the pool's health hears of a database that cannot be reached.
      const client = await pool.connect();
      try {
        const result = await client.query(toPostgres(text), params as unknown[]);
        client.release();
        return result.rows as Row[];
      } catch (error) {
        // A connection that failed is not given back to the pool for the next caller.
        client.release(isConnectionError(error) ? (error as Error) : undefined);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

/** One round trip to the store: what /health answers for. */
export async function pingEngineStore(store: EngineStore): Promise<void> {
  await store.query('select 1');
}
