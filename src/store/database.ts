import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import type pg from 'pg';
import { isConnectionError } from './db-errors.js';
import { createDbHealth, type DbHealth } from './db-health.js';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** A connection or a transaction: writes that audit themselves run inside the caller's transaction. */
export type Executor = Kysely<Database>;

/**
 * A repo's unit of work: the service passes `work`, which runs in one transaction, and hands `trx` to
 * every write that must commit with it (the row, its outbox event, its audit row) or not at all.
 */
export function unitOfWork(db: Executor) {
  return <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> => db.transaction().execute(work);
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** SQLite: the connection under Kysely, for the click writer's prepared bulk statements. */
  readonly sqlite?: SQLite.Database;
  /** PostgreSQL: the schema this store works in, when not the default. */
  readonly schema?: string;
  /** The database as last seen by the pool (always up on SQLite): for /health and /metrics. */
  readonly health: DbHealth;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
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
 * Takes the organization's row lock for the rest of the transaction on PostgreSQL, so two requests that
 * count an organization's rows before adding one (a cap) take turns. SQLite runs one writer at a time,
 * and FOR UPDATE is not its syntax.
 */
export async function lockOrganizationRow(store: Store, trx: Kysely<Database>, orgId: string): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await trx.selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate().execute();
}

/** Opens `sqlite:<path>` (WAL, busy timeout) or `postgres://...`. */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options.sqliteCacheMb);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`Unsupported DATABASE_URL: ${redact(url)}`);
}

function openSqlite(path: string, cacheMb: number | undefined): Store {
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', sqlite: database, health: createDbHealth(), close: () => db.destroy() };
}

/** pg, required (it is CommonJS, so synchronously) by the first PostgreSQL store: SQLite never loads it. */
const requirePg = () => createRequire(import.meta.url)('pg') as typeof pg;

function openPostgres(url: string, options: OpenStoreOptions): Store {
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', ...(schema ? { schema } : {}), health, close: () => db.destroy() };
}

export interface MigrationReport {
  applied: string[];
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(store: Store): Promise<MigrationReport> {
  // The bookkeeping tables live in the store's own schema: introspection sees every schema, so without
  // this a sibling schema's tables would be taken for ours.
  const migrator = new Migrator({
    db: store.db,
    provider: migrationProvider,
    // Migrations are numbered per domain; a later-numbered one may land first on a deployed database.
    allowUnorderedMigrations: true,
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  let { error, results } = await migrator.migrateToLatest();
  // PostgreSQL serializes migrators with Kysely's lock table; SQLite has no such lock, so a second process
  // migrating the same file at the same moment (the CLI beside a starting server) can find a table the
  // first one just created. That migration is done: read the bookkeeping again and carry on.
  for (let attempt = 1; error && store.dialect === 'sqlite' && attempt <= 3; attempt++) {
    if (!/already exists/.test(String(error instanceof Error ? error.message : error))) break;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return { applied: (results ?? []).map((result) => result.migrationName) };
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
