import type { ClickhouseClient } from './client.js';
import type { Tables } from './schema.js';

/**
 * The backfill's own ClickHouse tables (backfill.ts), made when a backfill starts, never by the service.
 *
 * - `backfill_checkpoint`: where a backfill is, one row per step (a chunk started, a chunk done, an
 *   organization's rollups done, a month done), read back whole when a run starts. In ClickHouse rather
 *   than the main database: it describes what this ClickHouse database holds, so a target dropped and
 *   made again starts from the beginning by itself, and the main database needs no migration for a
 *   one-off tool. A `StripeLog` (appended to one file, read whole) rather than a `MergeTree`: a row or
 *   two per chunk would each be a part to merge, and thousands of small organizations' months would
 *   reach the server's limit on parts.
 * - `backfill_rollups`: a `Null` table (it keeps nothing) whose views add its rows to `link_rollups`,
 *   `org_rollups`, `group_rollups` and `link_days` and write its batch id into the exactly-once ledger
 *   (`click_batch_parts`), like an insert into `clicks` does. The rollups a SQL store kept but whose raw
 *   clicks it no longer has (or could never rebuild: escape cells) go in through it, once.
 * - `backfill_outcome_rollups`: the same for the outcome rollups (per link, organization and group): the
 *   escape-cell outcome counts (`cell_outcome`) that copied tap outcomes cannot rebuild.
 */
export function backfillStatements(t: Tables): string[] {
  const db = t.database;
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.backfill_checkpoint (seq UInt64, month UInt32, org_id String,
      step String, state String, from_at UInt64, from_id UInt64, to_at UInt64, to_id UInt64,
      batch_id String, rows UInt64, at DateTime) ENGINE = StripeLog`,
    `CREATE TABLE IF NOT EXISTS ${db}.backfill_rollups (batch_id String, kind String, org_id String,
      link_id String, day Date, dimension String, value String, clicks UInt64) ENGINE = Null`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_link_rollups_mv TO ${t.linkRollups.text} AS
      SELECT org_id, link_id, day, dimension, value, clicks FROM ${db}.backfill_rollups WHERE kind = 'link'`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_org_rollups_mv TO ${t.orgRollups.text} AS
      SELECT org_id, day, dimension, value, clicks FROM ${db}.backfill_rollups WHERE kind = 'org'`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_link_days_mv TO ${t.linkDays.text} AS
      SELECT org_id, link_id, day, clicks FROM ${db}.backfill_rollups
      WHERE kind = 'link' AND dimension = 'total'`,
    // A group row carries its group in link_id (backfill.ts, groupRowsOf).
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_group_rollups_mv TO ${t.groupRollups.text} AS
      SELECT org_id, link_id AS grp, day, dimension, value, clicks FROM ${db}.backfill_rollups
      WHERE kind = 'group'`,
    `CREATE TABLE IF NOT EXISTS ${db}.backfill_outcome_rollups (batch_id String, kind String, org_id String,
      link_id String, day Date, dimension String, value String, taps Int64) ENGINE = Null`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_link_outcomes_mv TO ${t.outcomeRollups.text} AS
      SELECT org_id, link_id, day, dimension, value, taps FROM ${db}.backfill_outcome_rollups WHERE kind = 'link'`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_org_outcomes_mv TO ${t.orgOutcomeRollups.text} AS
      SELECT org_id, day, dimension, value, taps FROM ${db}.backfill_outcome_rollups WHERE kind = 'org'`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_group_outcomes_mv TO ${t.groupOutcomeRollups.text} AS
      SELECT org_id, link_id AS grp, day, dimension, value, taps FROM ${db}.backfill_outcome_rollups
      WHERE kind = 'group'`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_outcome_parts_mv TO ${t.batchParts.text} AS
      SELECT batch_id, toYYYYMM(day) AS month, count() AS clicks, today() AS written
      FROM ${db}.backfill_outcome_rollups GROUP BY batch_id, month`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.backfill_batch_parts_mv TO ${t.batchParts.text} AS
      SELECT batch_id, toYYYYMM(day) AS month, count() AS clicks, today() AS written
      FROM ${db}.backfill_rollups GROUP BY batch_id, month`,
  ];
}

export async function applyBackfillSchema(client: ClickhouseClient, t: Tables): Promise<void> {
  for (const statement of backfillStatements(t)) await client.command(statement);
}
