import type { ClickhouseClient } from './client.js';
import { raw, sql } from './literal.js';
import type { Tables } from './schema.js';

/**
 * First outcome wins, exactly, in the outcome rollups. write.ts inserts a tap's outcome only when the tap
 * has none, so each tap adds one row to the rollups' views, except in the one race it cannot see: two
 * different first reports of a tap read "none" at the same instant and both insert (only while Redis,
 * which redeems a token once, is down). This pass takes the later rows back.
 *
 * What it reads: `outcome_writes`, every outcome row as inserted (the ReplacingMergeTree `outcomes`
 * merges the loser away, its +1 stays in the rollups), partitioned by the server's day it was written.
 * A tap with more than one row there is a candidate. For each, the rows the rollups counted (its rows in
 * the ledger) plus the signed rows already in `outcome_corrections` must come to exactly its first row
 * (FIRST_OUTCOME) once; the difference is inserted into `outcome_corrections`, whose views add it to
 * both rollup tables.
 *
 * Why it is exact and idempotent:
 * - The check is a difference, not a flag: a second pass (or one after a crash between the insert and
 *   anything else) finds nothing to add. Two passes at the same moment (two instances) can both add
 *   the same difference; the next pass sees the over-correction and adds it back.
 * - Bounded and complete: each pass scans the whole ledger, then drops its days older than today - 2
 *   (and the corrections of those days). A day is dropped only by a pass that has just corrected it, so
 *   "anything not yet corrected" is simply what is still there, whatever the time since the last pass. The
 *   two rows of a race are inserted within one request's time of each other (the insert follows its read
 *   at once), so they are in the same day or two consecutive ones, and a day is dropped only when the
 *   next one is at least a day old: both rows were scanned together. A correction is made on or after
 *   the day of the rows it corrects, so dropping corrections by the same cutoff never leaves a
 *   candidate's rows without their correction.
 * - Cost: the ledger holds two to three days of outcome rows (tap ids and a few short columns); a pass
 *   is one GROUP BY over it (by a 64-bit hash of the tap's key), then point work for the candidates,
 *   which are normally none.
 */

/** Candidates read per statement (an `IN` list of hashes, then of tap ids). */
const CHUNK = 1000;
/** Days of the ledger kept after a pass: today, yesterday and the day before, in the server's days. */
const KEEP_DAYS = 2;

interface LedgerRow {
  org_id: string;
  link_id: string;
  tap_day: string;
  tap_id: string;
  outcome: string;
  variant: number | null;
  platform_key: string;
  cell: string;
  at_ms: string;
  /** The stamp of the tap's link on its day (one value for all of a tap's rows). */
  groups: string[];
  n: string | number;
}

const tapKey = (row: LedgerRow) => `${row.org_id}\n${row.link_id}\n${row.tap_day}\n${row.tap_id}`;
const rowKey = (row: LedgerRow) =>
  JSON.stringify([row.outcome, row.variant, row.platform_key, row.cell, String(row.at_ms)]);
/** FIRST_OUTCOME in JS: earliest, then outcome, platform, cell (ClickHouse compares strings bytewise). */
const before = (a: LedgerRow, b: LedgerRow): boolean => {
  const at = BigInt(a.at_ms) - BigInt(b.at_ms);
  if (at !== 0n) return at < 0n;
  for (const field of ['outcome', 'platform_key', 'cell'] as const) {
    const x = Buffer.from(a[field]);
    const y = Buffer.from(b[field]);
    const order = Buffer.compare(x, y);
    if (order !== 0) return order < 0;
  }
  return false;
};

export interface CorrectionReport {
  /** Taps whose rollups changed. */
  taps: number;
  /** Signed rows inserted into `outcome_corrections`. */
  rows: number;
  /** Days of the ledger dropped. */
  dropped: string[];
}

export function createOutcomeCorrection(client: ClickhouseClient, t: Tables) {
  const sized = (statement: string) => ({
    max_query_size: String(Math.max(262_144, statement.length + 4096)),
  });
  const columns = raw(
    'org_id, link_id, toString(day) AS tap_day, tap_id, outcome, variant, platform_key, cell, toString(at) AS at_ms, groups',
  );
  const group = raw('org_id, link_id, tap_day, tap_id, outcome, variant, platform_key, cell, at_ms, groups');

  /** The corrections each candidate tap needs, as rows of `outcome_corrections` (without `corrected`). */
  async function differences(tapIds: string[], wanted: Set<string>) {
    const ledgerSql = sql`SELECT ${columns}, count() AS n FROM ${t.outcomeWrites}
      WHERE tap_id IN ${tapIds} GROUP BY ${group}`;
    const correctionsSql = sql`SELECT ${columns}, sum(sign) AS n FROM ${t.outcomeCorrections}
      WHERE tap_id IN ${tapIds} GROUP BY ${group}`;
    const ledger = await client.rows<LedgerRow>(ledgerSql, sized(ledgerSql));
    const corrections = await client.rows<LedgerRow>(correctionsSql, sized(correctionsSql));
    const taps = new Map<string, { first: LedgerRow; net: Map<string, { row: LedgerRow; n: number }> }>();
    const add = (tap: { net: Map<string, { row: LedgerRow; n: number }> }, row: LedgerRow) => {
      const entry = tap.net.get(rowKey(row)) ?? { row, n: 0 };
      entry.n += Number(row.n);
      tap.net.set(rowKey(row), entry);
    };
    // The first row is chosen among the rows inserted, never among corrections.
    for (const row of ledger) {
      const key = tapKey(row);
      if (!wanted.has(key)) continue;
      const tap = taps.get(key) ?? { first: row, net: new Map() };
      if (before(row, tap.first)) tap.first = row;
      taps.set(key, tap);
      add(tap, row);
    }
    for (const row of corrections) {
      const tap = taps.get(tapKey(row));
      if (tap) add(tap, row);
    }
    const out: object[] = [];
    let changed = 0;
    for (const tap of taps.values()) {
      const firstKey = rowKey(tap.first);
      let touched = false;
      for (const [key, { row, n }] of tap.net) {
        let missing = (key === firstKey ? 1 : 0) - n;
        if (missing !== 0) touched = true;
        while (missing !== 0) {
          // Int8: a difference beyond it (never seen) goes in several rows.
          const sign = Math.max(-127, Math.min(127, missing));
          missing -= sign;
          out.push({
            org_id: row.org_id,
            link_id: row.link_id,
            day: row.tap_day,
            tap_id: row.tap_id,
            outcome: row.outcome,
            variant: row.variant,
            platform_key: row.platform_key,
            cell: row.cell,
            at: Number(row.at_ms),
            groups: row.groups,
            sign,
          });
        }
      }
      if (touched) changed += 1;
    }
    return { rows: out, taps: changed };
  }

  /** Drops the table's days older than `oldest` (ISO dates compare as text). */
  async function dropBefore(table: string, oldest: string): Promise<string[]> {
    const parts = await client.rows<{ partition: string }>(
      sql`SELECT DISTINCT partition FROM system.parts
        WHERE database = ${t.database} AND table = ${table} AND active`,
    );
    const dropped: string[] = [];
    for (const { partition } of parts) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(partition) || partition >= oldest) continue;
      await client.command(sql`ALTER TABLE ${raw(`${t.database}.${table}`)} DROP PARTITION ${partition}`);
      dropped.push(partition);
    }
    return dropped.sort();
  }

  return {
    /** One pass: every candidate of the ledger corrected, then the ledger's old days dropped. */
    async correctOutcomes(): Promise<CorrectionReport> {
      const [days] = await client.rows<{ today: string; oldest: string }>(
        `SELECT toString(today()) AS today, toString(today() - ${KEEP_DAYS}) AS oldest`,
      );
      if (!days) throw new Error('ClickHouse answered no row to SELECT today()');
      // Grouped by a hash of the tap's key, not the key: days of a busy service's outcomes are millions of
      // rows, and a hash table of 64-bit keys is a fraction of one of strings. A collision only makes a
      // tap with one row a candidate, for which the difference is nothing.
      const hashes = await client.rows<{ h: string }>(
        sql`SELECT toString(h) AS h FROM (SELECT cityHash64(org_id, link_id, day, tap_id) AS h
          FROM ${t.outcomeWrites}) GROUP BY h HAVING count() > 1`,
      );
      const report: CorrectionReport = { taps: 0, rows: 0, dropped: [] };
      for (let i = 0; i < hashes.length; i += CHUNK) {
        const wantedHashes = hashes.slice(i, i + CHUNK).map((row) => row.h);
        const keys = sql`SELECT DISTINCT org_id, link_id, toString(day) AS tap_day, tap_id
          FROM ${t.outcomeWrites} WHERE toString(cityHash64(org_id, link_id, day, tap_id)) IN ${wantedHashes}`;
        const chunk = await client.rows<LedgerRow>(keys, sized(keys));
        const wanted = new Set(chunk.map(tapKey));
        const found = await differences([...new Set(chunk.map((row) => row.tap_id))], wanted);
        await client.insert(
          t.outcomeCorrections.text,
          found.rows.map((row) => ({ corrected: days.today, ...row })),
        );
        report.taps += found.taps;
        report.rows += found.rows.length;
      }
      // The ledger first: a crash between the two leaves corrections without rows, which no pass reads.
      report.dropped = await dropBefore('outcome_writes', days.oldest);
      await dropBefore('outcome_corrections', days.oldest);
      return report;
    },
  };
}

export type OutcomeCorrection = ReturnType<typeof createOutcomeCorrection>;
