import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { isConnectionError } from './db-errors.js';
import { createDbHealth, type DbHealth } from './db-health.js';

/**
 * The two drivers as every store opens them, without Kysely: SQLite with its pragmas, a PostgreSQL pool
 * whose failures feed the store's health. database.ts puts Kysely on top for the hosted service; the
 * self-hosted engine (engine/store.ts) asks its two statements of the drivers directly, so that its
 * process never loads Kysely (issue #36: 60 MB idle).
 */

export type Dialect = 'sqlite' | 'postgres';

export interface ConnectionOptions {
  /** PostgreSQL only: the schema to work in (tests use a throwaway schema each). */
  schema?: string;
  /** PostgreSQL only: pool size. */
  maxConnections?: number;
  /**
   * PostgreSQL only: the longest a statement may run (the server cancels it) before its caller sees an
   * error. Unset for migrations and the CLI, which may legitimately take long; the serving store sets it
   * so that nothing waits long on a database that stopped answering.
   */
  statementTimeoutMs?: number;
  /** PostgreSQL only: told when a pool or client error is seen (the pool has already dropped the client). */
  onError?: (error: Error) => void;
  /**
   * SQLite only: the connection's page cache ceiling in MB (SQLITE_CACHE_MB for a server's connections).
   * Unset: better-sqlite3's compiled default (16,000 KiB), for migrations and the CLI.
   */
  sqliteCacheMb?: number;
}

/** SQLite: how long a statement waits for another connection's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** How long a new connection, or a free one from a full pool, may take before the caller gets an error. */
export const CONNECT_TIMEOUT_MS = 1000;

/**
 * A serving store's statements are cut off after this long (the server cancels them): an API call meets a
 * database that stopped answering with a 503 within about 2 s instead of hanging. Migrations run on a
 * store of their own without it, since building an index on a large table may legitimately take minutes.
 */
export const SERVING_STATEMENT_TIMEOUT_MS = 1500;

/** `sqlite:<path>` to its path, `postgres://...` as it is; anything else is refused. */
export function parseDatabaseUrl(url: string): { dialect: 'sqlite'; path: string } | { dialect: 'postgres' } {
  if (url.startsWith('sqlite:')) return { dialect: 'sqlite', path: url.slice('sqlite:'.length) };
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { dialect: 'postgres' };
  throw new Error(`Unsupported DATABASE_URL: ${redact(url)}`);
}

/** Opens the SQLite file (its folder made): WAL, FULL sync, a busy timeout, foreign keys on. */
export function openSqliteDatabase(path: string, cacheMb: number | undefined): SQLite.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  // WAL lets readers run beside the one writer; FULL sync keeps a 2xx durable across power loss;
  // the busy timeout lets a second process (the CLI beside the server) wait instead of failing.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  // The click writer's batches dirty one or two index and rollup pages per link they touch; past the
  // default page cache those spill mid-transaction and are read back. A ceiling, not an allocation,
  // but one a writer under load reaches: its batches keep touching fresh pages.
  if (cacheMb !== undefined) database.pragma(`cache_size = -${Math.round(cacheMb * 1024)}`);
  return database;
}

/** pg, required (it is CommonJS, so synchronously) by the first PostgreSQL store: SQLite never loads it. */
const requirePg = () => createRequire(import.meta.url)('pg') as typeof pg;

/**
 * A PostgreSQL pool and the database's health as the pool sees it. Ask it for clients with `connect()`
 * and no callback (as Kysely does): those connects are the ones whose failures mark the database down.
 */
export function openPgPool(url: string, options: ConnectionOptions): { pool: pg.Pool; health: DbHealth } {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error('Invalid schema name');
  const timeout = options.statementTimeoutMs;
  const pool = new (requirePg().Pool)({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // TCP keepalive finds a connection whose peer vanished without a reset.
    keepAlive: true,
    ...(timeout ? { statement_timeout: timeout, query_timeout: timeout + 500 } : {}),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const health = createDbHealth();
  const failed = (error: Error) => {
    if (isConnectionError(error)) health.markDown(error);
    try {
      options.onError?.(error);
    } catch {
      // Reporting a pool error never becomes an error of its own.
    }
  };
  // An idle client that loses its connection is reported by the pool; without this listener that
  // 'error' event would be unhandled and end the process ("Connection terminated unexpectedly").
  pool.on('error', failed);
  // A client in use (inside a query or a transaction) emits 'error' itself, besides failing its query;
  // the pool only listens while the client is idle, so every client gets a listener for its whole life.
  pool.on('connect', (client) => {
    client.on('error', failed);
    health.markUp();
  });
  // A connect that fails (refused, timed out) rejects its caller and emits nothing: seen here instead.
  // Kysely asks for clients with connect() and no callback; anything else goes to the pool unchanged.
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args) => {
    if (args.length > 0) return connect(...args);
    const startedAt = Date.now();
    return (connect() as Promise<pg.PoolClient>).then(
      (client) => {
        health.markUp();
        return client;
      },
      (error: unknown) => {
        // Waiting for a free client past the timeout is the pool being busy, not the database away: the
        // caller still gets its 503, but health only hears of failures to reach the database (under load,
        // such a wait had logged a second outage). And a connect begun before the latest success (slow, it
        // timed out after the database came back) is older news than that success.
        if (isConnectionError(error) && !isPoolWaitTimeout(error)) health.markDown(error, startedAt);
        throw error;
      },
    );
  };
  return { pool, health };
}

/** A unique-constraint violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** pg-pool's own error when no client came free within the connect timeout (its wording, pg-pool 3.x). */
const isPoolWaitTimeout = (error: unknown) =>
  error instanceof Error && error.message === 'timeout exceeded when trying to connect';
