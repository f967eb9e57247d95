import { DAY_MS } from '../model.js';
import type { ClickhouseClient } from './client.js';
import { type RawSql, raw, sql } from './literal.js';
import { isoDay } from './rows.js';

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
 *   (earliest `at`, then outcome, platform, cell: `FIRST_OUTCOME`) wins for the clicks list and the
 *   export; the ReplacingMergeTree's version (`precedence`, larger for an earlier outcome) makes
 *   background merges keep that same row.
 * - `outcome_rollups` / `org_outcome_rollups`: SummingMergeTree tables of outcome counts per (link,
 *   dimension, day, value) and per (organization, dimension, day, value) (`outcome`, `platform_outcome`,
 *   `cell_outcome`; `variant_outcome` per link only, the one scope that reads it), fed by views on
 *   `outcomes`, so a read sums a few rows a day instead of folding every tap. A view counts every row
 *   inserted: write.ts inserts a tap's row only when it has none, and the one race it cannot see (two
 *   different first reports at the same instant, only while Redis is down) is taken back by the
 *   correction (outcome-correction.ts) through `outcome_corrections`, whose views add its signed rows.
 *   Counts are Int64 for those negative rows.
 * - `outcome_writes`: every outcome row inserted, with the server's day it was written (a view on
 *   `outcomes`), partitioned by that day: what the correction scans. It keeps the rows the
 *   ReplacingMergeTree merges away, and is dropped a day at a time once corrected.
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
  // The link's folder and tag groups on the click's day (group-history.ts): what group_rollups sums by.
  'groups Array(String)',
];

export interface Tables {
  database: string;
  clicks: RawSql;
  linkRollups: RawSql;
  orgRollups: RawSql;
  outcomes: RawSql;
  batchParts: RawSql;
  outcomeRollups: RawSql;
  orgOutcomeRollups: RawSql;
  outcomeWrites: RawSql;
  outcomeCorrections: RawSql;
  groupRollups: RawSql;
  groupOutcomeRollups: RawSql;
  groupMarks: RawSql;
  linkDays: RawSql;
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
    outcomeRollups: name('outcome_rollups'),
    orgOutcomeRollups: name('org_outcome_rollups'),
    outcomeWrites: name('outcome_writes'),
    outcomeCorrections: name('outcome_corrections'),
    groupRollups: name('group_rollups'),
    groupOutcomeRollups: name('group_outcome_rollups'),
    groupMarks: name('group_marks'),
    linkDays: name('link_days'),
  };
}

/**
 * The click dimensions both rollup views keep, `bot` for a bot's click and the others from a person's (the
 * pairs below); the per-link view adds `variant`, the organization's `link`. Reads and the backfill ask
 * these of the rollups, everything else of `outcomes`' views.
 */
export const ROLLUP_DIMENSIONS = [
  'total',
  'bot',
  'country',
  'device',
  'platform',
  'referrer',
  'hour',
  'source',
  'cell',
];

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

/**
 * The per-link rollups' index marks every 1,024 rows rather than 8,192. A folder or a tag reads them with
 * `link_id IN (...)`, and 18.16 narrows that by link only, not by the dimension and days after it in the
 * key: each link then costs whole granules of its rows, in every part. At 8,192 a folder's totals read
 * 1.3M rows of a 2M-click bench for 100 links, at 1,024 a third as many (43 against 9 ms; the dimension
 * sums 53 against 22 ms). The index is eight times larger, still a few marks per thousand rows.
 */
const FINE = 'SETTINGS index_granularity = 1024';

export function schemaStatements(t: Tables): string[] {
  const db = t.database;
  const rollup = (key: string) => `ENGINE = SummingMergeTree() PARTITION BY toYYYYMM(day) ORDER BY (${key})`;
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${t.clicks.text} (${CLICK_COLUMNS.join(', ')})
      ENGINE = MergeTree() PARTITION BY toYYYYMM(day) ORDER BY (org_id, link_id, at)`,
    `CREATE TABLE IF NOT EXISTS ${t.linkRollups.text} (org_id String, link_id String, day Date,
      dimension String, value String, clicks UInt64) ${rollup('org_id, link_id, dimension, day, value')}
      ${FINE}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.link_rollups_mv TO ${t.linkRollups.text} AS
      SELECT org_id, link_id, day, pair.1 AS dimension, pair.2 AS value, count() AS clicks
      FROM ${t.clicks.text} ARRAY JOIN ${pairsOf(LINK_PAIRS)}
      GROUP BY org_id, link_id, day, dimension, value`,
    // A link's human clicks a day, one row: what the daily series and the per-link list of a set of links
    // read, which `link_rollups` answers only by reading every dimension of those links (18.16 narrows
    // `link_id IN` by link alone).
    `CREATE TABLE IF NOT EXISTS ${t.linkDays.text} (org_id String, link_id String, day Date, clicks UInt64)
      ${rollup('org_id, link_id, day')}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.link_days_mv TO ${t.linkDays.text} AS
      SELECT org_id, link_id, day, count() AS clicks FROM ${t.clicks.text} WHERE bot = 0
      GROUP BY org_id, link_id, day`,
    `CREATE TABLE IF NOT EXISTS ${t.orgRollups.text} (org_id String, day Date, dimension String,
      value String, clicks UInt64) ${rollup('org_id, dimension, day, value')}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.org_rollups_mv TO ${t.orgRollups.text} AS
      SELECT org_id, day, pair.1 AS dimension, pair.2 AS value, count() AS clicks
      FROM ${t.clicks.text} ARRAY JOIN ${pairsOf(ORG_PAIRS)}
      GROUP BY org_id, day, dimension, value`,
    `CREATE TABLE IF NOT EXISTS ${t.groupRollups.text} (org_id String, grp String, day Date,
      dimension String, value String, clicks UInt64) ${rollup('org_id, grp, dimension, day, value')}`,
    // Each click counted once in every group of its stamp: arrayJoin over the groups, ARRAY JOIN over the
    // pairs (the organization's, `link` included) makes their product.
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.group_rollups_mv TO ${t.groupRollups.text} AS
      SELECT org_id, arrayJoin(groups) AS grp, day, pair.1 AS dimension, pair.2 AS value, count() AS clicks
      FROM ${t.clicks.text} ARRAY JOIN ${pairsOf(ORG_PAIRS)}
      GROUP BY org_id, grp, day, dimension, value`,
    `CREATE TABLE IF NOT EXISTS ${t.outcomes.text} (org_id String, link_id String, day Date,
      tap_id String, outcome String, variant Nullable(Int32), platform_key String, cell String,
      at UInt64, precedence UInt64, groups Array(String))
      ENGINE = ReplacingMergeTree(precedence) PARTITION BY toYYYYMM(day) ORDER BY (org_id, link_id, day, tap_id)`,
    `CREATE TABLE IF NOT EXISTS ${t.batchParts.text} (batch_id String, month UInt32, clicks UInt64,
      written Date) ENGINE = MergeTree() PARTITION BY written ORDER BY (batch_id, month)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.click_batch_parts_mv TO ${t.batchParts.text} AS
      SELECT batch_id, toYYYYMM(day) AS month, count() AS clicks, today() AS written
      FROM ${t.clicks.text} GROUP BY batch_id, month`,
    ...outcomeStatements(t),
  ];
}

/** An outcome row's columns, as `outcomes` has them (without its merge version). */
export const OUTCOME_COLUMNS =
  'org_id String, link_id String, day Date, tap_id String, outcome String, variant Nullable(Int32), ' +
  'platform_key String, cell String, at UInt64, groups Array(String)';
const OUTCOME_NAMES = 'org_id, link_id, day, tap_id, outcome, variant, platform_key, cell, at, groups';

/**
 * Which of a tap's rows is its first: the earliest, ties broken by outcome, platform and cell so that
 * every reader (the clicks list, the correction, the fill) picks the same row. The correction's JS
 * (outcome-correction.ts) orders by the same fields.
 */
export const FIRST_OUTCOME = '(at, outcome, platform_key, cell)';

/** An outcome row's (dimension, value) pairs, as the SQL store names them; '' dimensions are dropped. */
const OUTCOME_PAIRS = [
  "('outcome', outcome)",
  "('platform_outcome', concat(platform_key, '|', outcome))",
  "(if(cell = '', '', 'cell_outcome'), concat(cell, '|', outcome))",
];
const LINK_OUTCOME_PAIRS = [
  ...OUTCOME_PAIRS,
  "(if(isNull(variant), '', 'variant_outcome'), concat(ifNull(toString(variant), ''), '|', outcome))",
];
const outcomePairsOf = (pairs: string[]) => `arrayFilter(x -> x.1 != '', [${pairs.join(', ')}]) AS pair`;

/** The outcome rollups' rows of `source`'s rows, each counted `weight` times (an expression). */
export function outcomeRollupSelects(source: string, weight: string) {
  return {
    link: `SELECT org_id, link_id, day, pair.1 AS dimension, pair.2 AS value, toInt64(${weight}) AS taps
      FROM ${source} ARRAY JOIN ${outcomePairsOf(LINK_OUTCOME_PAIRS)}
      GROUP BY org_id, link_id, day, dimension, value`,
    org: `SELECT org_id, day, pair.1 AS dimension, pair.2 AS value, toInt64(${weight}) AS taps
      FROM ${source} ARRAY JOIN ${outcomePairsOf(OUTCOME_PAIRS)}
      GROUP BY org_id, day, dimension, value`,
    group: `SELECT org_id, arrayJoin(groups) AS grp, day, pair.1 AS dimension, pair.2 AS value,
        toInt64(${weight}) AS taps
      FROM ${source} ARRAY JOIN ${outcomePairsOf(OUTCOME_PAIRS)}
      GROUP BY org_id, grp, day, dimension, value`,
  };
}

function outcomeStatements(t: Tables): string[] {
  const db = t.database;
  const rollup = (key: string) => `ENGINE = SummingMergeTree() PARTITION BY toYYYYMM(day) ORDER BY (${key})`;
  const fromOutcomes = outcomeRollupSelects(t.outcomes.text, 'count()');
  const fromCorrections = outcomeRollupSelects(t.outcomeCorrections.text, 'sum(sign)');
  return [
    `CREATE TABLE IF NOT EXISTS ${t.outcomeRollups.text} (org_id String, link_id String, day Date,
      dimension String, value String, taps Int64) ${rollup('org_id, link_id, dimension, day, value')}
      ${FINE}`,
    `CREATE TABLE IF NOT EXISTS ${t.orgOutcomeRollups.text} (org_id String, day Date, dimension String,
      value String, taps Int64) ${rollup('org_id, dimension, day, value')}`,
    `CREATE TABLE IF NOT EXISTS ${t.groupOutcomeRollups.text} (org_id String, grp String, day Date,
      dimension String, value String, taps Int64) ${rollup('org_id, grp, dimension, day, value')}`,
    `CREATE TABLE IF NOT EXISTS ${t.outcomeWrites.text} (written Date, ${OUTCOME_COLUMNS})
      ENGINE = MergeTree() PARTITION BY written ORDER BY (org_id, link_id, day, tap_id)`,
    `CREATE TABLE IF NOT EXISTS ${t.outcomeCorrections.text} (corrected Date, ${OUTCOME_COLUMNS}, sign Int8)
      ENGINE = MergeTree() PARTITION BY corrected ORDER BY (org_id, link_id, day, tap_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.outcome_writes_mv TO ${t.outcomeWrites.text} AS
      SELECT today() AS written, ${OUTCOME_NAMES} FROM ${t.outcomes.text}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.outcome_rollups_mv TO ${t.outcomeRollups.text} AS
      ${fromOutcomes.link}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.org_outcome_rollups_mv TO ${t.orgOutcomeRollups.text} AS
      ${fromOutcomes.org}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.outcome_corrections_mv TO ${t.outcomeRollups.text} AS
      ${fromCorrections.link}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.org_outcome_corrections_mv TO ${t.orgOutcomeRollups.text} AS
      ${fromCorrections.org}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.group_outcome_rollups_mv TO ${t.groupOutcomeRollups.text} AS
      ${fromOutcomes.group}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.group_outcome_corrections_mv TO ${t.groupOutcomeRollups.text} AS
      ${fromCorrections.group}`,
  ];
}

/**
 * Creates whatever is missing (the database through a client not bound to it), then fills the outcome
 * rollups of a database made before them (fillOutcomeRollups).
 */
export async function applySchema(client: ClickhouseClient, t: Tables): Promise<void> {
  const [database, ...rest] = schemaStatements(t);
  await client.command(database as string);
  await markGroupsFrom(client, t);
  await addGroupColumns(client, t);
  for (const statement of rest) await client.command(statement);
  await fillOutcomeRollups(client, t);
}

/**
 * A database that has clicks and no `group_rollups` yet was made before them and `link_days`: its earlier
 * clicks have no stamp and no day row, so both are complete only from tomorrow (UTC) on, which
 * `group_marks` records before the tables are made (a crash between the two marks again, later: the reads
 * take the latest). Reads whose window starts before that day sum the per-link rollups instead
 * (reads.ts), as fast as before and right; after the longest window (90 days) every read uses them.
 * A fresh database has no mark. Not covered: an instance of the earlier release still writing clicks
 * (unstamped) after tomorrow began, in a rolling upgrade that spans midnight.
 */
async function markGroupsFrom(client: ClickhouseClient, t: Tables): Promise<void> {
  await client.command(
    `CREATE TABLE IF NOT EXISTS ${t.groupMarks.text} (day Date, marked DateTime) ENGINE = MergeTree() ORDER BY day`,
  );
  const [state] = await client.rows<{ groups: string; clicks: string }>(
    sql`SELECT countIf(name = 'group_rollups') AS groups, countIf(name = 'clicks') AS clicks
      FROM system.tables WHERE database = ${t.database}`,
  );
  if (Number(state?.groups ?? 0) > 0 || Number(state?.clicks ?? 0) === 0) return;
  const [held] = await client.rows<{ n: string }>(`SELECT count() AS n FROM ${t.linkRollups.text}`);
  if (Number(held?.n ?? 0) === 0) return;
  const tomorrow = Math.floor(Date.now() / DAY_MS) + 1;
  await client.insert(t.groupMarks.text, [{ day: isoDay(tomorrow), marked: Math.floor(Date.now() / 1000) }]);
}

/** The first day the group rollups hold every click of (0 for a database made with them). */
export async function groupsCompleteFrom(client: ClickhouseClient, t: Tables): Promise<number> {
  const [row] = await client.rows<{ day: string }>(
    `SELECT toUInt32(max(day)) AS day FROM ${t.groupMarks.text}`,
  );
  return Number(row?.day ?? 0);
}

/** The tables that carry a row's `groups` stamp (a database made before the group rollups lacks it). */
const STAMPED = ['clicks', 'outcomes', 'outcome_writes', 'outcome_corrections'];

/**
 * A database made before the group rollups gets the `groups` column on its stamped tables (18.16 has no
 * `ADD COLUMN IF NOT EXISTS`: system.columns says which lack it). `outcome_writes` is filled by a view
 * that names its columns, so that view is dropped first and made again by the statements after this:
 * a crash between the two leaves the view missing, which the next start makes (`IF NOT EXISTS`).
 */
async function addGroupColumns(client: ClickhouseClient, t: Tables): Promise<void> {
  const rows = await client.rows<{ table: string; has: string }>(
    sql`SELECT table, countIf(name = 'groups') AS has FROM system.columns
      WHERE database = ${t.database} AND table IN ${STAMPED} GROUP BY table`,
  );
  for (const row of rows) {
    if (Number(row.has) > 0) continue;
    if (row.table === 'outcome_writes')
      await client.command(`DROP TABLE IF EXISTS ${t.database}.outcome_writes_mv`);
    await client.command(`ALTER TABLE ${t.database}.${row.table} ADD COLUMN groups Array(String)`);
  }
}

/**
 * A database made before the outcome rollups has outcomes and empty rollups: they are filled once from
 * `outcomes`, each tap's first outcome alone (FIRST_OUTCOME). Empty rollups beside outcomes mean exactly
 * that: every outcome inserted once the views exist adds a rollup row (each has an `outcome` pair), and a
 * tap's rows never sum to zero (the correction leaves one). Two counts on table metadata at each start,
 * nothing more once filled. Not covered: two instances starting together on such a database would both
 * fill (an operator's rehearsal starts one), and an outcome inserted during the fill is counted by its
 * view and, when the fill's read sees it, by the fill too.
 */
async function fillOutcomeRollups(client: ClickhouseClient, t: Tables): Promise<void> {
  const count = async (table: RawSql) =>
    Number((await client.rows<{ n: string }>(`SELECT count() AS n FROM ${table.text}`))[0]?.n ?? 0);
  if ((await count(t.outcomeRollups)) > 0 || (await count(t.outcomes)) === 0) return;
  const first = `(SELECT org_id, link_id, day, o AS outcome, v AS variant, p AS platform_key, c AS cell
    FROM (SELECT org_id, link_id, day, tap_id,
        argMin(outcome, ${FIRST_OUTCOME}) AS o, argMin(variant, ${FIRST_OUTCOME}) AS v,
        argMin(platform_key, ${FIRST_OUTCOME}) AS p, argMin(cell, ${FIRST_OUTCOME}) AS c
      FROM ${t.outcomes.text} GROUP BY org_id, link_id, day, tap_id))`;
  const selects = outcomeRollupSelects(first, 'count()');
  await client.command(`INSERT INTO ${t.outcomeRollups.text} ${selects.link}`);
  await client.command(`INSERT INTO ${t.orgOutcomeRollups.text} ${selects.org}`);
}
