import type { ColumnType, Kysely } from 'kysely';

/**
 * One row per click batch written with an id (spilled segments on both dialects, every batch on
 * PostgreSQL), inserted in the same transaction as the batch's clicks: a batch replayed after a crash, or
 * retried after a commit whose answer was lost with the connection, finds its id taken and is not counted
 * twice. Rows older than a week are pruned by the writer.
 */
export interface ClickBatchTable {
  id: string;
  /** Epoch milliseconds of the write (bigint). */
  at: ColumnType<number | string, number, never>;
}

export interface ClickBatchTables {
  click_batches: ClickBatchTable;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('click_batches')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('click_batches_at').on('click_batches').column('at').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('click_batches').execute();
}
