import type { ColumnType, Kysely } from 'kysely';

/**
 * Kysely view of the analytics tables; the lead adds `AnalyticsTables` to `Database` in
 * src/store/schema.ts. Integers that can exceed 2^31 (`at`, sums) come back from PostgreSQL as strings:
 * readers convert with Number().
 */
export interface ClickTable {
  id: string;
  org_id: string;
  link_id: string;
  /** Epoch milliseconds (bigint). */
  at: ColumnType<number | string, number, never>;
  /** 1 for a bot or link-preview fetch: kept apart, never in click totals. */
  bot: number;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: string;
  source_app: string | null;
  referrer_host: string | null;
  platform_key: string | null;
  tap_id: string | null;
}

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

/**
 * Pre-aggregated counts per (link, UTC day, dimension, value); link_id '' holds the organization-wide
 * aggregate so a whole-organization read never touches per-link rows.
 */
export interface ClickRollupTable {
  org_id: string;
  link_id: string;
  day: number;
  dimension: string;
  value: string;
  count: ColumnType<number | string, number, number>;
}

export interface AnalyticsTables {
  clicks: ClickTable;
  tap_outcomes: TapOutcomeTable;
  click_rollups: ClickRollupTable;
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
  // The clicks list reads one link newest first; the export reads an organization in time order.
  await db.schema.createIndex('clicks_link_at').on('clicks').columns(['link_id', 'at']).execute();
  await db.schema.createIndex('clicks_org_at').on('clicks').columns(['org_id', 'at']).execute();

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

  await db.schema
    .createTable('click_rollups')
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('dimension', 'varchar(16)', (col) => col.notNull())
    .addColumn('value', 'varchar(253)', (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull())
    // Dimension before day: every read asks for a few dimensions over a day range of one scope.
    .addPrimaryKeyConstraint('click_rollups_pk', ['org_id', 'link_id', 'dimension', 'day', 'value'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('click_rollups').execute();
  await db.schema.dropTable('tap_outcomes').execute();
  await db.schema.dropTable('clicks').execute();
}
