import type SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import {
  type ConnectionOptions,
  type Dialect,
  openPgPool,
  openSqliteDatabase,
  parseDatabaseUrl,
} from './connections.js';
import { createDbHealth, type DbHealth } from './db-health.js';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export {
  CONNECT_TIMEOUT_MS,
  type Dialect,
  isUniqueViolation,
  SQLITE_BUSY_TIMEOUT_MS,
} from './connections.js';

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

/** How a store opens its connections (connections.ts). */
export type OpenStoreOptions = ConnectionOptions;

/**
 * Takes the organization's row lock for the rest of the transaction on PostgreSQL, so two requests that
 * count an organization's rows before adding one (a cap) take turns. SQLite runs one writer at a time,
 * and FOR UPDATE is not its syntax.
 */
export async function lockOrganizationRow(store: Store, trx: Kysely<Database>, orgId: string): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await trx.selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate().execute();
}

/** Opens `sqlite:<path>` (WAL, busy timeout) or `postgres://...`, with Kysely over the driver. */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  const parsed = parseDatabaseUrl(url);
  if (parsed.dialect === 'sqlite') {
    const database = openSqliteDatabase(parsed.path, options.sqliteCacheMb);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    return { db, dialect: 'sqlite', sqlite: database, health: createDbHealth(), close: () => db.destroy() };
  }
  const { pool, health } = openPgPool(url, options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const schema = options.schema;
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
