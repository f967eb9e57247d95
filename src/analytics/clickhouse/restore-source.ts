import { isEscapeStrategy } from '../../core/escape/bandit.js';
import type { EscapeStrategy } from '../../core/escape/index.js';
import { cellValueOf } from '../escape-cells.js';
import { DAY_MS, type Outcome, type OutcomeRow } from '../model.js';
import type { ClickInput } from '../write/click-input.js';
import { monthStart, nextMonth } from './backfill-source.js';
import type { ClickhouseClient } from './client.js';
import { dayOf, raw, sql } from './literal.js';
import type { ClickhouseClickRow } from './rows.js';
import { FIRST_OUTCOME, type Tables } from './schema.js';

/**
 * What `linkhop analytics backfill --to main` (restore.ts) reads from ClickHouse, and the rows it reads
 * turned back into the SQL store's inputs (the inverse of rows.ts). Only what the service wrote there is
 * read: a `clicks` row whose batch id starts with `backfill-` came from the main database in the first
 * place. Every read is bounded by a month (a partition); the clicks by batch, the outcomes by
 * organization, the first two columns of `outcomes`' key.
 */

/** The forward backfill's batch ids (backfill.ts): its rows are the main database's already. */
const FORWARD = raw("substring(batch_id, 1, 9) != 'backfill-'");

/** A batch's rows in one month: written by one INSERT (write.ts), so fixed once there. */
export interface BatchSlice {
  batchId: string;
  /** Its earliest and latest click (epoch ms): the slice's place in the month, and its read's bounds. */
  firstAt: number;
  lastAt: number;
  clicks: number;
}

/** A place in a month's slices, ordered by (firstAt, batchId). */
export interface SliceCursor {
  at: number;
  batchId: string;
}

/** Some organizations' outcome rows in a month, or some links' of one organization that has many. */
export interface OutcomeUnit {
  orgIds: string[];
  /** null: all of the organizations'. */
  linkIds: string[] | null;
  rows: number;
  /** The unit finishes its last organization's rows (a place to resume after). */
  endsOrg: boolean;
}

/** A `clicks` row as read back: as written (rows.ts), the 64-bit `at` as text, without its stamp. */
export type ClickRowRead = Omit<ClickhouseClickRow, 'day' | 'at' | 'groups'> & { at_ms: string };

/** An `outcomes` row as read back. */
export interface OutcomeRowRead {
  org_id: string;
  link_id: string;
  epoch_day: number | string;
  tap_id: string;
  outcome: string;
  variant: number | null;
  platform_key: string;
  cell: string;
  at_ms: string;
}

const CLICK_COLUMNS = raw(
  'batch_id, seq, toString(at) AS at_ms, org_id, link_id, bot, variant, routed, country, city, device, ' +
    'source_app, referrer_host, platform_key, tap_id, cell, expired, qr',
);

/** '' is how ClickHouse stores an absent value, null how the SQL store does. */
const orNull = (value: string): string | null => (value === '' ? null : value);

/**
 * The strategy of a click's escape cell (`inApp|os|platform|strategy`), when the cell is exactly the
 * one the SQL store makes of the click's own fields and that strategy (cellValueOf): then it rebuilds
 * the same cell. Anything else (no cell, one that does not parse) gives no strategy, and no cell.
 */
function strategyOf(row: ClickRowRead): EscapeStrategy | null {
  const strategy = row.cell.split('|')[3];
  if (row.cell === '' || !isEscapeStrategy(strategy)) return null;
  const facts = {
    inApp: orNull(row.source_app),
    os: row.device,
    platform: orNull(row.platform_key),
    strategy,
  };
  return cellValueOf(facts) === row.cell ? strategy : null;
}

/** A `clicks` row as the write path's input, as rows.ts's clickRow made the row of it. */
export function clickInputOfRow(row: ClickRowRead): ClickInput {
  const strategy = strategyOf(row);
  return {
    orgId: row.org_id,
    linkId: row.link_id,
    at: Number(row.at_ms),
    bot: Number(row.bot) === 1,
    variant: row.variant === null ? null : Number(row.variant),
    routed: orNull(row.routed),
    country: orNull(row.country),
    city: orNull(row.city),
    device: row.device as ClickInput['device'],
    sourceApp: orNull(row.source_app),
    referrerHost: orNull(row.referrer_host),
    platformKey: orNull(row.platform_key),
    tapId: orNull(row.tap_id),
    ...(strategy ? { strategy } : {}),
    ...(Number(row.expired) === 1 ? { expired: true } : {}),
    ...(Number(row.qr) === 1 ? { source: 'qr' as const } : {}),
  };
}

/**
 * A tap's first outcome as the SQL store's input. The tap's in-app browser, OS and strategy live only in
 * the row's cell: taken from it when it is exactly the cell those and the row's platform make.
 */
export function outcomeOfRow(row: OutcomeRowRead): OutcomeRow {
  const platformKey = orNull(row.platform_key);
  const [inApp = '', os = '', , strategy] = row.cell.split('|');
  const facts = { inApp: orNull(inApp), os, platform: platformKey, strategy };
  const cell = row.cell !== '' && isEscapeStrategy(strategy) && cellValueOf(facts) === row.cell;
  return {
    tapId: row.tap_id,
    orgId: row.org_id,
    linkId: row.link_id,
    day: Number(row.epoch_day),
    outcome: row.outcome as Outcome,
    variant: row.variant === null ? null : Number(row.variant),
    platformKey,
    ...(cell ? { sourceApp: facts.inApp, device: os, strategy } : {}),
    at: Number(row.at_ms),
  };
}

/** A month's first and last day as the `day` bounds that let a read skip every other partition. */
function monthDays(month: number) {
  const first = monthStart(month) / DAY_MS;
  return { first: dayOf(first), last: dayOf(monthStart(nextMonth(month)) / DAY_MS - 1) };
}

/** A statement with a long `IN` list is longer than the server's default 256 KiB query. */
const sized = (statement: string) => ({ max_query_size: String(Math.max(262_144, statement.length + 4096)) });

/** Bounds on a month's slices: after a cursor, from it (inclusive), up to it (inclusive). */
export interface SliceRange {
  after?: SliceCursor;
  from?: SliceCursor;
  upTo?: SliceCursor;
}

/** `(min(at), batch_id) op cursor` as a HAVING condition (18.16 has no tuple comparison to lean on). */
function sliceBound(cursor: SliceCursor, op: '>' | '>=' | '<='): string {
  const strict = raw(op === '<=' ? '<' : '>');
  return sql`(min(at) ${strict} ${cursor.at} OR (min(at) = ${cursor.at} AND batch_id ${raw(op)} ${cursor.batchId}))`;
}

const MONTH_PARTITION = /^\d{6}$/;

export function createRestoreSource(client: ClickhouseClient, t: Tables) {
  /** The months (`YYYYMM`) a table has rows in, from its active parts: no table is read. */
  async function partitions(table: string): Promise<number[]> {
    const rows = await client.rows<{ partition: string }>(
      sql`SELECT DISTINCT partition FROM system.parts
        WHERE database = ${t.database} AND table = ${table} AND active`,
    );
    return rows
      .map((row) => row.partition)
      .filter((partition) => MONTH_PARTITION.test(partition))
      .map(Number)
      .sort((a, b) => a - b);
  }

  return {
    /** Whether ANALYTICS_URL's database has the service's tables at all. */
    async hasTables(): Promise<boolean> {
      const [row] = await client.rows<{ n: string }>(
        sql`SELECT count() AS n FROM system.tables WHERE database = ${t.database}
          AND name IN ('clicks', 'outcomes')`,
      );
      return Number(row?.n ?? 0) === 2;
    },

    /**
     * The months holding clicks or outcomes, and those whose rollups have no raw click left: retention
     * dropped the month's clicks (CLICK_RETENTION_DAYS drops whole partitions and keeps the rollups), or
     * the forward backfill brought the month from the main database as rollups alone.
     */
    async months(): Promise<{ copy: number[]; rollupsOnly: number[] }> {
      const clicks = await partitions('clicks');
      const outcomes = await partitions('outcomes');
      const rollups = [...(await partitions('link_rollups')), ...(await partitions('org_rollups'))];
      const withClicks = new Set(clicks);
      return {
        copy: [...new Set([...clicks, ...outcomes])].sort((a, b) => a - b),
        rollupsOnly: [...new Set(rollups)].filter((month) => !withClicks.has(month)).sort((a, b) => a - b),
      };
    },

    /** The rows of `clicks` and `outcomes` (whole tables, no WHERE: cheap), to see whether anything wrote meanwhile. */
    async rowCounts(): Promise<string> {
      const [clicks] = await client.rows<{ n: string }>(`SELECT count() AS n FROM ${t.clicks.text}`);
      const [outcomes] = await client.rows<{ n: string }>(`SELECT count() AS n FROM ${t.outcomes.text}`);
      return `${Number(clicks?.n ?? 0)} clicks, ${Number(outcomes?.n ?? 0)} outcome rows`;
    },

    /**
     * The month's slices of the service's batches within `range`, in (firstAt, batchId) order, at most
     * `limit`. Each call aggregates the month's batch ids again: a page is thousands of batches, so a
     * month costs a few passes over its `batch_id` column.
     */
    async slices(month: number, range: SliceRange, limit: number): Promise<BatchSlice[]> {
      const days = monthDays(month);
      const bounds = [
        range.after ? sliceBound(range.after, '>') : '',
        range.from ? sliceBound(range.from, '>=') : '',
        range.upTo ? sliceBound(range.upTo, '<=') : '',
      ]
        .filter(Boolean)
        .join(' AND ');
      const rows = await client.rows<{ batch_id: string; lo: string; hi: string; n: string }>(
        sql`SELECT batch_id, min(at) AS lo, max(at) AS hi, count() AS n FROM ${t.clicks}
          WHERE day >= ${days.first} AND day <= ${days.last} AND ${FORWARD}
          GROUP BY batch_id ${raw(bounds ? `HAVING ${bounds}` : '')}
          ORDER BY lo, batch_id LIMIT ${limit}`,
      );
      return rows.map((row) => ({
        batchId: row.batch_id,
        firstAt: Number(row.lo),
        lastAt: Number(row.hi),
        clicks: Number(row.n),
      }));
    },

    /**
     * The clicks of the slices (one month's), slice by slice in the order given, each in its batch's
     * order (seq). A row twice (a server crash inside one INSERT can leave a month's rows written twice,
     * write.ts) is read once: a click is its batch id and seq.
     */
    async clicksOf(month: number, slices: readonly BatchSlice[]): Promise<ClickInput[]> {
      if (slices.length === 0) return [];
      const days = monthDays(month);
      const from = Math.min(...slices.map((slice) => slice.firstAt));
      const to = Math.max(...slices.map((slice) => slice.lastAt));
      // The time bounds skip the granules of links the group's batches never touched (the table is
      // ordered by org, link, time); the batch ids then pick the rows.
      const statement = sql`SELECT ${CLICK_COLUMNS} FROM ${t.clicks}
        WHERE day >= ${days.first} AND day <= ${days.last} AND at >= ${from} AND at <= ${to}
          AND batch_id IN ${slices.map((slice) => slice.batchId)}`;
      const rows = await client.rows<ClickRowRead>(statement, sized(statement));
      const place = new Map(slices.map((slice, i) => [slice.batchId, i]));
      const seen = new Set<string>();
      return rows
        .filter((row) => {
          const key = `${row.batch_id}\n${row.seq}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .sort(
          (a, b) =>
            (place.get(a.batch_id) ?? 0) - (place.get(b.batch_id) ?? 0) || Number(a.seq) - Number(b.seq),
        )
        .map(clickInputOfRow);
    },

    /**
     * The month's outcome rows after organization `afterOrg`, in units of about `limit` rows: consecutive
     * organizations (id order) together, an organization of more than `limit` rows alone, split into its
     * links (id order).
     */
    async outcomeUnits(month: number, afterOrg: string, limit: number): Promise<OutcomeUnit[]> {
      const days = monthDays(month);
      const inMonth = raw(sql`day >= ${days.first} AND day <= ${days.last}`);
      const orgs = await client.rows<{ org_id: string; n: string }>(
        sql`SELECT org_id, count() AS n FROM ${t.outcomes} WHERE ${inMonth} AND org_id > ${afterOrg}
          GROUP BY org_id ORDER BY org_id`,
      );
      const units: OutcomeUnit[] = [];
      let together: OutcomeUnit | null = null;
      for (const org of orgs) {
        const rows = Number(org.n);
        if (rows <= limit) {
          if (!together || together.rows + rows > limit) {
            together = { orgIds: [], linkIds: null, rows: 0, endsOrg: true };
            units.push(together);
          }
          together.orgIds.push(org.org_id);
          together.rows += rows;
          continue;
        }
        together = null;
        const links = await client.rows<{ link_id: string; n: string }>(
          sql`SELECT link_id, count() AS n FROM ${t.outcomes}
            WHERE ${inMonth} AND org_id = ${org.org_id} GROUP BY link_id ORDER BY link_id`,
        );
        let unit: OutcomeUnit | null = null;
        for (const link of links) {
          if (!unit || unit.rows >= limit) {
            unit = { orgIds: [org.org_id], linkIds: [], rows: 0, endsOrg: false };
            units.push(unit);
          }
          unit.linkIds?.push(link.link_id);
          unit.rows += Number(link.n);
        }
        if (unit) unit.endsOrg = true;
      }
      return units;
    },

    /**
     * Each tap's first outcome (FIRST_OUTCOME, as every ClickHouse read picks it) among the unit's rows of
     * the month: the tap's rows sorted together, the first of each kept.
     */
    async firstOutcomes(month: number, unit: OutcomeUnit): Promise<OutcomeRow[]> {
      const days = monthDays(month);
      const links = unit.linkIds === null ? raw('') : raw(sql` AND link_id IN ${unit.linkIds}`);
      const statement = sql`SELECT org_id, link_id, toUInt32(day) AS epoch_day, tap_id, outcome, variant,
          platform_key, cell, toString(at) AS at_ms
        FROM ${t.outcomes}
        WHERE day >= ${days.first} AND day <= ${days.last} AND org_id IN ${unit.orgIds}${links}
        ORDER BY org_id, link_id, day, tap_id, ${raw(FIRST_OUTCOME.slice(1, -1))}`;
      const rows = await client.rows<OutcomeRowRead>(statement, sized(statement));
      const firsts: OutcomeRow[] = [];
      let last = '';
      for (const row of rows) {
        const key = `${row.org_id}\n${row.link_id}\n${row.epoch_day}\n${row.tap_id}`;
        if (key === last) continue;
        last = key;
        firsts.push(outcomeOfRow(row));
      }
      return firsts;
    },

    /** Clicks (people's and bots') the organization rollups hold per month, for the months given. */
    async rollupClicks(months: readonly number[]): Promise<Map<number, number>> {
      if (months.length === 0) return new Map();
      const rows = await client.rows<{ month: number | string; n: string }>(
        sql`SELECT toYYYYMM(day) AS month, sum(clicks) AS n FROM ${t.orgRollups}
          WHERE dimension IN ('total', 'bot') AND toYYYYMM(day) IN ${[...months]} GROUP BY month`,
      );
      return new Map(rows.map((row) => [Number(row.month), Number(row.n)]));
    },
  };
}

export type RestoreSource = ReturnType<typeof createRestoreSource>;
