import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Each link's folder and tag groups by UTC day, for the ClickHouse group rollups: a click is stamped with
 * its link's groups when written, and a move never rewrites a stamped row. A move takes effect for stamps
 * two days after the day it is made, so every click that can exist keeps the stamp it was (or will be)
 * given; reads correct the moved links from these rows. A link without rows is stamped with its current
 * groups. One row per group of a segment; an empty group set is one row with grp = ''.
 */
export interface LinkGroupHistoryTable {
  org_id: string;
  link_id: string;
  /** UTC epoch day from which the segment applies (0 for the set every earlier click got). */
  effective_day: number;
  grp: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('link_group_history')
    .addColumn('org_id', 'text', (col) => col.notNull())
    .addColumn('link_id', 'text', (col) => col.notNull())
    .addColumn('effective_day', 'integer', (col) => col.notNull())
    .addColumn('grp', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('link_group_history_pk', ['link_id', 'effective_day', 'grp'])
    .modifyEnd(sqlite ? sql`without rowid` : sql``)
    .execute();
  // The moved links of one group (a folder's or a tag's read corrects exactly these).
  await db.schema
    .createIndex('link_group_history_org_grp')
    .on('link_group_history')
    .columns(['org_id', 'grp'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('link_group_history').execute();
}
