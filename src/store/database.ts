import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** SQLite: the connection under Kysely, for the click writer's prepared bulk statements. */
  readonly sqlite?: SQLite.Database;
  /** PostgreSQL: the schema this store works in, when not the default. */
  readonly schema?: string;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** PostgreSQL only: the schema to work in (tests use a throwaway schema each). */
  schema?: string;
  /** PostgreSQL only: pool size. */
  maxConnections?: number;
}

/** Opens `sqlite:<path>` (WAL, busy timeout) or `postgres://...`. */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`Unsupported DATABASE_URL: ${redact(url)}`);
}

function openSqlite(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  // WAL lets readers run beside the one writer; FULL sync keeps a 2xx durable across power loss;
  // the busy timeout lets a second process (the CLI beside the server) wait instead of failing.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // The click writer's batches dirty one or two index and rollup pages per link they touch; past the
  // default 2 MB page cache those spill mid-transaction and are read back. 64 MB is a ceiling, not an
  // allocation.
  database.pragma('cache_size = -65536');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', sqlite: database, close: () => db.destroy() };
}

function openPostgres(url: string, options: OpenStoreOptions): Store {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error('Invalid schema name');
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', ...(schema ? { schema } : {}), close: () => db.destroy() };
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
