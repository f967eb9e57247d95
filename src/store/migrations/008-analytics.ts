import { type ColumnType, type Kysely, SqliteAdapter, sql } from 'kysely';
import type { ClickBlockTable } from './012-click-blocks.js';

/**
 * Kysely view of the analytics tables; the lead adds `AnalyticsTables` to `Database` in
 * src/store/schema.ts. Integers that can exceed 2^31 (`at`, sums) come back from PostgreSQL as strings:
 * readers convert with Number(). The raw clicks table made here became `click_blocks` in migration 012.
 */

/** One row per tap that reported an outcome; the primary key makes the first outcome win. */
export interface TapOutcomeTable {
  tap_id: string;
  org_id: string;
  link_id: string;
  /** Epoch day (UTC) of the tap itself, so outcomes land on the same day as their click. */
  day: number;
  outcome: string;
  variant: number | null;
  platform_key: string | null;
  /** Epoch milliseconds of the report. */
  at: ColumnType<number | string, number, never>;
}

/** Pre-aggregated counts per (link, UTC day, dimension, value), kept by the batch writer. */
export interface ClickRollupTable {
  org_id: string;
  link_id: string;
  day: number;
  dimension: string;
  value: string;
  count: ColumnType<number | string, number, number>;
}

/**
 * The same counts for a whole organization, so its reads never touch per-link rows; dimensions ending in
 * '/w' count a 7-day block whose first epoch day is `day`.
 */
export interface OrgRollupTable {
  org_id: string;
  day: number;
  dimension: string;
  value: string;
  count: ColumnType<number | string, number, number>;
}

export interface AnalyticsTables {
  /** Raw clicks, packed since migration 012. */
  click_blocks: ClickBlockTable;
  tap_outcomes: TapOutcomeTable;
  click_rollups: ClickRollupTable;
  org_rollups: OrgRollupTable;
}

// Analytics (hosted-service.md sections 1, 2 and 8). No foreign keys on purpose: rows are written in
// batches off the request path, and one bad reference must not fail a whole batch; links are never deleted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('clicks')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('bot', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('variant', 'integer')
    .addColumn('routed', 'text')
    .addColumn('country', 'varchar(2)')
    .addColumn('city', 'varchar(64)')
    .addColumn('device', 'varchar(16)', (col) => col.notNull())
    .addColumn('source_app', 'varchar(32)')
    .addColumn('referrer_host', 'varchar(253)')
    .addColumn('platform_key', 'varchar(32)')
    .addColumn('tap_id', 'varchar(36)')
    .execute();
  // The clicks list reads one link newest first, the export an organization oldest first; the id is the
  // tie-break of both orders, so the index alone yields a page without sorting the window.
  await db.schema.createIndex('clicks_link_at').on('clicks').columns(['link_id', 'at', 'id']).execute();
  await db.schema.createIndex('clicks_org_at').on('clicks').columns(['org_id', 'at', 'id']).execute();

  await db.schema
    .createTable('tap_outcomes')
    .addColumn('tap_id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('outcome', 'varchar(8)', (col) => col.notNull())
    .addColumn('variant', 'integer')
    .addColumn('platform_key', 'varchar(32)')
    .addColumn('at', 'bigint', (col) => col.notNull())
    .execute();

  // Rollups are read by key range and count is all they carry: on SQLite the primary key is the table
  // itself (WITHOUT ROWID), so a range scan reads the counts without a second lookup per row.
  const clustered = db.getExecutor().adapter instanceof SqliteAdapter ? sql`without rowid` : sql``;
  // Day before dimension: a batch's increments for one link (all on today) land on neighbouring pages.
  await db.schema
    .createTable('click_rollups')
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('dimension', 'varchar(24)', (col) => col.notNull())
    .addColumn('value', 'varchar(253)', (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('click_rollups_pk', ['link_id', 'day', 'dimension', 'value'])
    .modifyEnd(clustered)
    .execute();
  // Dimension before day: an organization read asks for a few dimensions over a range of days.
  await db.schema
    .createTable('org_rollups')
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('dimension', 'varchar(24)', (col) => col.notNull())
    .addColumn('value', 'varchar(253)', (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('org_rollups_pk', ['org_id', 'dimension', 'day', 'value'])
    .modifyEnd(clustered)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('org_rollups').execute();
  await db.schema.dropTable('click_rollups').execute();
  await db.schema.dropTable('tap_outcomes').execute();
  await db.schema.dropTable('clicks').execute();
}
