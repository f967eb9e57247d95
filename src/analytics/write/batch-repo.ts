import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../../store/database.js';

type SqliteDatabase = SQLite.Database;

import type { AnalyticsDatabase } from '../model.js';
import type { GroupCache } from './group-rollups.js';
import type { Increments } from './increments.js';

/** The batch writer's inserts: raw click rows and rollup increments, many rows per statement. */

type Tx = Transaction<AnalyticsDatabase>;

export interface BulkTable {
  name: string;
  columns: readonly string[];
  /** PostgreSQL array types for `unnest`, column by column. */
  pgTypes: readonly string[];
  /** Appended to the insert (an ON CONFLICT clause). */
  suffix?: string;
}

/** Raw clicks, packed blocks per link per batch (click-blocks.ts); the id is generated. */
export const BLOCKS_TABLE: BulkTable = {
  name: 'click_blocks',
  columns: ['org_id', 'link_id', 'first_at', 'last_at', 'humans', 'data'],
  pgTypes: ['varchar', 'varchar', 'bigint', 'bigint', 'int', 'text'],
};

export const ROLLUPS_TABLE: BulkTable = {
  name: 'click_rollups',
  columns: ['org_id', 'link_id', 'day', 'dimension', 'value', 'count'],
  pgTypes: ['varchar', 'varchar', 'int', 'varchar', 'varchar', 'int'],
  suffix:
    'on conflict ("link_id", "day", "dimension", "value") ' +
    'do update set "count" = "click_rollups"."count" + excluded."count"',
};

export const ORG_ROLLUPS_TABLE: BulkTable = {
  name: 'org_rollups',
  columns: ['org_id', 'day', 'dimension', 'value', 'count'],
  pgTypes: ['varchar', 'int', 'varchar', 'varchar', 'int'],
  suffix:
    'on conflict ("org_id", "dimension", "day", "value") ' +
    'do update set "count" = "org_rollups"."count" + excluded."count"',
};

/** Folder and tag rollups (group-rollups.ts), rows in `GroupRow` order. */
export const GROUPS_TABLE: BulkTable = {
  name: 'group_rollups',
  columns: ['org_id', 'grp', 'dimension', 'day', 'value', 'count'],
  pgTypes: ['varchar', 'varchar', 'varchar', 'int', 'varchar', 'int'],
  suffix:
    'on conflict ("org_id", "grp", "dimension", "day", "value") ' +
    'do update set "count" = "group_rollups"."count" + excluded."count"',
};

/**
 * Many rows in few statements, both dialects: PostgreSQL takes the rows as one text parameter, a line per
 * row and a tab between columns, split server-side (`string_to_table`, `split_part`); SQLite a multi-row
 * VALUES list. One text parameter rather than an array per column: node-pg escapes every element of an
 * array one by one, which cost the writer thread more than the database spent inserting (180 to 340 ms for
 * 134,000 rollup rows, against 100 ms for the text whole). Built as compiled SQL because Kysely's builder
 * spends more time on a 10,000-value insert than the database does.
 */
export async function insertMany(
  db: Kysely<AnalyticsDatabase> | Tx,
  dialect: Dialect,
  table: BulkTable,
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  if (dialect === 'postgres') {
    const sqlText = postgresInsert(table);
    for (let start = 0; start < rows.length; start += PG_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + PG_ROWS_PER_STATEMENT);
      await db.executeQuery(CompiledQuery.raw(sqlText, [tabSeparated(chunk)]));
    }
    return;
  }
  const sqlFor = sqliteInsert(table);
  const perStatement = Math.floor(8000 / table.columns.length);
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    await db.executeQuery(CompiledQuery.raw(sqlFor(chunk.length), chunk.flat()));
  }
}

const PG_ROWS_PER_STATEMENT = 50_000;
const LINE_BREAKS = /[\t\n]/g;

/**
 * The rows as one text: no value of these tables is null, and none holds a tab or a line break (ids, codes,
 * host names, JSON text, which escapes both); one that did would have them turned to spaces, never split.
 */
function tabSeparated(rows: readonly (readonly unknown[])[]): string {
  let text = '';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as readonly unknown[];
    if (r > 0) text += '\n';
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      const cell = typeof value === 'string' ? value : String(value);
      if (i > 0) text += '\t';
      text += cell.indexOf('\t') === -1 && cell.indexOf('\n') === -1 ? cell : cell.replace(LINE_BREAKS, ' ');
    }
  }
  return text;
}

/** SQL of a PostgreSQL insert of tab-separated lines into `table`. */
function postgresInsert(table: BulkTable): string {
  const columns = table.columns.map((column) => `"${column}"`).join(', ');
  const cells = table.pgTypes
    .map((type, i) => {
      const cell = `split_part(line, E'\\t', ${i + 1})`;
      return type === 'varchar' || type === 'text' ? cell : `${cell}::${type}`;
    })
    .join(', ');
  const suffix = table.suffix ? ` ${table.suffix}` : '';
  return `insert into "${table.name}" (${columns}) select ${cells} from string_to_table($1, E'\\n') as line${suffix}`;
}

/** SQL of a multi-row SQLite insert into `table`, by row count. */
function sqliteInsert(table: BulkTable): (count: number) => string {
  const columns = table.columns.map((column) => `"${column}"`).join(', ');
  const tuple = `(${table.columns.map(() => '?').join(', ')})`;
  const suffix = table.suffix ? ` ${table.suffix}` : '';
  return (count) =>
    `insert into "${table.name}" (${columns}) values ${Array(count).fill(tuple).join(', ')}${suffix}`;
}

/**
 * SQLite, synchronously, on the connection's own handle inside the caller's transaction: statements of a
 * few fixed sizes, each prepared once per connection, since preparing a multi-row insert costs nearly
 * what running it does.
 */
export function insertManySqlite(
  sqlite: SqliteHandle,
  table: BulkTable,
  rows: readonly (readonly unknown[])[],
) {
  const sqlFor = sqliteInsert(table);
  for (let start = 0; start < rows.length; ) {
    const count = chunkSize(rows.length - start);
    sqlite.statement(sqlFor(count)).run(rows.slice(start, start + count).flat());
    start += count;
  }
}

/** The largest of 256, 128, ..., 1 rows that fits: at most nine statement shapes per table. */
function chunkSize(remaining: number): number {
  let size = 256;
  while (size > remaining) size >>= 1;
  return size;
}

/** A SQLite connection's prepared statements, by SQL text (the writer's handful of shapes). */
export interface SqliteHandle {
  statement(sql: string): PreparedOnce;
}

interface PreparedOnce {
  run(params: unknown[]): unknown;
  all(params: unknown[]): unknown[];
}

export function sqliteHandle(database: {
  prepare(sql: string): { run(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
}): SqliteHandle {
  const cache = new Map<string, PreparedOnce>();
  return {
    statement(sql) {
      let statement = cache.get(sql);
      if (!statement) {
        const prepared = database.prepare(sql);
        statement = { run: (params) => prepared.run(...params), all: (params) => prepared.all(...params) };
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * Adds a batch's increments: per-link rows to click_rollups, organization rows (link '') to org_rollups.
 * Each key comes once (Increments folds the batch) and in primary-key order: the upserts walk each index
 * forwards, and two instances writing the same keys on PostgreSQL lock them in the same order, so their
 * batches wait for each other instead of deadlocking.
 */
export async function writeIncrements(
  db: Kysely<AnalyticsDatabase> | Tx,
  dialect: Dialect,
  inc: Increments,
  groups?: GroupCache,
) {
  const { links, orgs } = incrementRows(inc);
  await insertMany(db, dialect, ROLLUPS_TABLE, links);
  await insertMany(db, dialect, ORG_ROLLUPS_TABLE, orgs);
  if (groups) await insertMany(db, dialect, GROUPS_TABLE, await groups.groupRows(db, dialect, inc));
}

/** The increments as rows of the two rollup tables, each in its primary-key order. */
function incrementRows(inc: Increments): { links: unknown[][]; orgs: unknown[][] } {
  const { links, orgs } = inc.inKeyOrder();
  return {
    links: links.map((row) => [row.org_id, row.link_id, row.day, row.dimension, row.value, row.count]),
    orgs: orgs.map((row) => [row.org_id, row.day, row.dimension, row.value, row.count]),
  };
}

/**
 * A click batch on SQLite: one synchronous transaction on the raw connection, so nothing else (no other
 * query's continuation) can run on the connection between its statements. Its commit does not wait for
 * the disk (`synchronous = NORMAL`, restored right after): in WAL mode that still survives a crash of
 * the process, and only a power loss can undo batches committed since the last checkpoint. A FULL commit
 * here cost ~5 ms of blocked event loop per batch, a quarter of the loop at 45 batches a second; API
 * writes keep their FULL commits, and their fsync covers these batches' frames too.
 */
export function writeClickBatchSqlite(
  database: SqliteDatabase,
  sqlite: SqliteHandle,
  blocks: readonly (readonly unknown[])[],
  inc: Increments,
  batchId?: string,
  groups?: GroupCache,
): boolean {
  // The pragmas go through the writer's statement cache: `database.pragma()` prepares on every call.
  const [level] = sqlite.statement('pragma synchronous').all([]) as { synchronous: number }[];
  sqlite.statement('pragma synchronous = NORMAL').run([]);
  try {
    return transactionOf(database)(sqlite, blocks, inc, batchId, groups);
  } finally {
    sqlite.statement(`pragma synchronous = ${Number(level?.synchronous)}`).run([]);
  }
}

/** The batch's statements, run inside its transaction. */
function writeBatchRows(
  sqlite: SqliteHandle,
  blocks: readonly (readonly unknown[])[],
  inc: Increments,
  batchId?: string,
  groups?: GroupCache,
): boolean {
  // A batch with an id is written once: a replay finds its id taken and writes nothing.
  if (batchId !== undefined) {
    const marked = sqlite.statement(MARK_BATCH_SQLITE).run([batchId, Date.now()]) as { changes: number };
    if (marked.changes === 0) return false;
  }
  insertManySqlite(sqlite, BLOCKS_TABLE, blocks);
  const { links, orgs } = incrementRows(inc);
  insertManySqlite(sqlite, ROLLUPS_TABLE, links);
  insertManySqlite(sqlite, ORG_ROLLUPS_TABLE, orgs);
  if (groups) insertManySqlite(sqlite, GROUPS_TABLE, groups.groupRowsSync(sqlite, inc));
  return true;
}

const transactions = new WeakMap<SqliteDatabase, typeof writeBatchRows>();

/**
 * A connection's batch transaction, built once: `database.transaction()` builds five wrappers, which
 * with the pragmas prepared per call cost about 30 µs a batch (a fifth of the writer's time on batches of
 * 100 clicks).
 */
function transactionOf(database: SqliteDatabase): typeof writeBatchRows {
  let transaction = transactions.get(database);
  if (!transaction) {
    transaction = database.transaction(writeBatchRows);
    transactions.set(database, transaction);
  }
  return transaction;
}

const MARK_BATCH_SQLITE = 'insert into "click_batches" ("id", "at") values (?, ?) on conflict do nothing';
const MARK_BATCH_PG =
  'insert into "click_batches" ("id", "at") values ($1, $2) on conflict do nothing returning "id"';

/**
 * Records a batch's id inside its transaction; false when the id is already there (the batch was written
 * before). On PostgreSQL a concurrent writer of the same id waits here for the first one's commit.
 */
export async function markBatch(db: Tx, batchId: string): Promise<boolean> {
  const result = await db.executeQuery(CompiledQuery.raw(MARK_BATCH_PG, [batchId, Date.now()]));
  return result.rows.length > 0;
}
