import type { ClickhouseClient } from './client.js';
import { type RawSql, raw } from './literal.js';

/**
 * The ClickHouse tables, created at start with `IF NOT EXISTS` (applying twice changes nothing). Every
 * statement is accepted by 18.16 (Debian's) and by current releases: the `ENGINE = X() PARTITION BY ...
 * ORDER BY ...` form, no TTL, no LowCardinality, no DateTime64, no query parameters.
 *
 * - `clicks`: one row per visit (bots too, flagged), partitioned by UTC month (`day` is a Date computed
 *   by the writer, so no server timezone enters a partition or a day) and ordered by (org_id, link_id,
 *   at): the clicks list reads one link newest first, the export one organization or a set of its links
 *   by time, and the exactly-once check and the rollup views need nothing more. A time-first key would
 *   serve the whole-organization export alone and make every per-link read scan the organization's
 *   month. Absent values are '' (the writer never stores an empty string for a present one).
 * - `link_rollups` / `org_rollups`: SummingMergeTree tables fed by materialized views on `clicks`, per
 *   (link, dimension, day, value) and per (organization, dimension, day, value), with the same dimension
 *   names and values as the SQL store's rollups (rollups.ts). The escape cells' taps (`cell`) are among
 *   them; `link` (clicks per link) is an organization dimension, `variant` a link one.
 * - `outcomes`: a tap's reported outcomes, keyed by tap id inside (org, link, day). The first outcome
 *   wins at read time (`argMin(..., at)` per tap); the ReplacingMergeTree's version (`precedence`, larger
 *   for an earlier outcome) makes background merges keep that same row. Outcome dimensions, `cell_outcome`
 *   included, are summed from here at read time, not by a view: a view sums every inserted row, and a
 *   second report of a tap (the Redis guard down) would count twice where the SQL store's primary key
 *   refuses it.
 * - `click_batch_parts`: the exactly-once ledger, fed by a view on `clicks`: which months of a batch id
 *   are written (write.ts has the protocol). Partitioned by the day written, so pruning drops partitions.
 */

export const CLICK_COLUMNS = [
  'org_id String',
  'link_id String',
  'day Date',
  'at UInt64',
  'batch_id String',
  'seq UInt32',
  'bot UInt8',
  'variant Nullable(Int32)',
  'routed String',
  'country String',
  'city String',
  'device String',
  'source_app String',
  'referrer_host String',
  'platform_key String',
  'tap_id String',
  'cell String',
  'expired UInt8',
  'qr UInt8',
];

export interface Tables {
  database: string;
  clicks: RawSql;
  linkRollups: RawSql;
  orgRollups: RawSql;
  outcomes: RawSql;
  batchParts: RawSql;
}

/** The tables' qualified names (the database name is checked by url.ts). */
export function tablesOf(database: string): Tables {
  const name = (table: string) => raw(`${database}.${table}`);
  return {
    database,
    clicks: name('clicks'),
    linkRollups: name('link_rollups'),
    orgRollups: name('org_rollups'),
    outcomes: name('outcomes'),
    batchParts: name('click_batch_parts'),
  };
}

/** A human click's (dimension, value) pairs; '' dimensions are dropped (a value the click does not have). */
const HUMAN_PAIRS = [
  "('total', '')",
  "('country', country)",
  "('device', device)",
  "('platform', platform_key)",
  "('referrer', referrer_host)",
  "('hour', toString(intDiv(at, 3600000) % 24))",
  "(if(qr = 1, 'source', ''), 'qr')",
  "(if(cell = '', '', 'cell'), cell)",
];
const LINK_PAIRS = [...HUMAN_PAIRS, "(if(isNull(variant), '', 'variant'), ifNull(toString(variant), ''))"];
const ORG_PAIRS = [...HUMAN_PAIRS, "('link', link_id)"];

const pairsOf = (pairs: string[]) =>
  `arrayFilter(x -> x.1 != '', if(bot = 1, [('bot', '')], [${pairs.join(', ')}])) AS pair`;

export function schemaStatements(t: Tables): string[] {
  const db = t.database;
  const rollup = (key: string) => `ENGINE = SummingMergeTree() PARTITION BY toYYYYMM(day) ORDER BY (${key})`;
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${t.clicks.text} (${CLICK_COLUMNS.join(', ')})
      ENGINE = MergeTree() PARTITION BY toYYYYMM(day) ORDER BY (org_id, link_id, at)`,
    `CREATE TABLE IF NOT EXISTS ${t.linkRollups.text} (org_id String, link_id String, day Date,
      dimension String, value String, clicks UInt64) ${rollup('org_id, link_id, dimension, day, value')}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.link_rollups_mv TO ${t.linkRollups.text} AS
      SELECT org_id, link_id, day, pair.1 AS dimension, pair.2 AS value, count() AS clicks
      FROM ${t.clicks.text} ARRAY JOIN ${pairsOf(LINK_PAIRS)}
      GROUP BY org_id, link_id, day, dimension, value`,
    `CREATE TABLE IF NOT EXISTS ${t.orgRollups.text} (org_id String, day Date, dimension String,
      value String, clicks UInt64) ${rollup('org_id, dimension, day, value')}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.org_rollups_mv TO ${t.orgRollups.text} AS
      SELECT org_id, day, pair.1 AS dimension, pair.2 AS value, count() AS clicks
      FROM ${t.clicks.text} ARRAY JOIN ${pairsOf(ORG_PAIRS)}
      GROUP BY org_id, day, dimension, value`,
    `CREATE TABLE IF NOT EXISTS ${t.outcomes.text} (org_id String, link_id String, day Date,
      tap_id String, outcome String, variant Nullable(Int32), platform_key String, cell String,
      at UInt64, precedence UInt64)
      ENGINE = ReplacingMergeTree(precedence) PARTITION BY toYYYYMM(day) ORDER BY (org_id, link_id, day, tap_id)`,
    `CREATE TABLE IF NOT EXISTS ${t.batchParts.text} (batch_id String, month UInt32, clicks UInt64,
      written Date) ENGINE = MergeTree() PARTITION BY written ORDER BY (batch_id, month)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.click_batch_parts_mv TO ${t.batchParts.text} AS
      SELECT batch_id, toYYYYMM(day) AS month, count() AS clicks, today() AS written
      FROM ${t.clicks.text} GROUP BY batch_id, month`,
  ];
}

/** Creates whatever is missing (the database through a client not bound to it). */
export async function applySchema(client: ClickhouseClient, t: Tables): Promise<void> {
  for (const statement of schemaStatements(t)) await client.command(statement);
}
