import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Store } from '../../store/database.js';
import type { Database } from '../../store/schema.js';
import { DAY_MS, type OutcomeRow } from '../model.js';
import type { ClickInput } from '../write/click-input.js';
import type { ClickhouseClient } from './client.js';
import type { GroupHistory } from './group-history.js';
import { dayOf, sql } from './literal.js';
import { createOutcomeCorrection } from './outcome-correction.js';
import { type ClickhouseClickRow, clickRow, monthOf, outcomeRow } from './rows.js';
import type { Tables } from './schema.js';

/**
 * The ClickHouse writes: a batch of clicks exactly once, a tap's first outcome, the ledger's pruning.
 *
 * Exactly once, on 18.16 (no `insert_deduplication_token`, no deduplication window on a non-replicated
 * table). One INSERT per month of the batch, sent as one block (`max_insert_block_size` above its rows),
 * is atomic on MergeTree: the month's rows become one part, or none. Each row carries the batch id, and a
 * view writes (batch id, month) into `click_batch_parts` in the same INSERT. A batch with an id first asks
 * the ledger which of its months are already written (a point read on the ledger's key, not a scan of
 * clicks) and inserts only the others; nothing left means the batch was written before, and the answer is
 * false, as the SQL store answers for an id already in `click_batches`. So a batch retried after a lost
 * acknowledgment, or replayed from the spill after a crash between its insert and its acknowledgment,
 * counts once, and one whose first attempt wrote one of two months writes only the other.
 *
 * What this cannot cover is inside one INSERT: ClickHouse writes the table's part and then each view's,
 * not atomically, so a server crash between the two (or a view's insert failing) leaves raw rows whose
 * rollups or ledger row are missing. A retry then rewrites the month if its ledger row is missing (the raw
 * rows twice, the rollups right) and skips it otherwise. No release before transactions (22.x,
 * experimental) closes that; it needs a server crash inside a single insert.
 */

/** Rows of one INSERT read as one block: ClickHouse's default (1,048,576) unless the month is larger. */
const DEFAULT_BLOCK_ROWS = 1_048_576;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** How long the outcome correction waits after a failed pass (it runs with the writer's hourly pruning). */
const CORRECTION_RETRY_MS = 10 * 60_000;

export function createClickhouseWrites(
  client: ClickhouseClient,
  t: Tables,
  main: Store,
  history: Pick<GroupHistory, 'stamps'>,
) {
  const correction = createOutcomeCorrection(client, t);
  let correctionFailed = 0;

  /** The months of `batchId` the ledger says are written. */
  async function writtenMonths(batchId: string): Promise<Set<number>> {
    const rows = await client.rows<{ month: number }>(
      sql`SELECT DISTINCT month FROM ${t.batchParts} WHERE batch_id = ${batchId}`,
    );
    return new Set(rows.map((row) => Number(row.month)));
  }

  function byMonth(rows: readonly ClickhouseClickRow[]): Map<number, ClickhouseClickRow[]> {
    const months = new Map<number, ClickhouseClickRow[]>();
    for (const row of rows) {
      const month = monthOf(Math.floor(row.at / DAY_MS));
      const list = months.get(month);
      if (list) list.push(row);
      else months.set(month, [row]);
    }
    return months;
  }

  return {
    /** The batch's clicks, each month in one atomic INSERT; false when every month was written before. */
    async writeClicks(clicks: readonly ClickInput[], batchId?: string): Promise<boolean> {
      // Without an id the rows still need one: click ids are `<batch>-<seq>`.
      const id = batchId ?? `u-${randomUUID()}`;
      const rows = clicks.map((click, seq) => clickRow(click, id, seq));
      // Stamps are fixed for any day a click can have (group-history.ts), so a retry stamps the same.
      const stamps = await history.stamps(
        rows.map((row) => ({ orgId: row.org_id, linkId: row.link_id, day: Math.floor(row.at / DAY_MS) })),
      );
      rows.forEach((row, i) => {
        row.groups = stamps[i] ?? [];
      });
      const months = byMonth(rows);
      const done = batchId === undefined ? new Set<number>() : await writtenMonths(batchId);
      let wrote = false;
      for (const [month, rows] of [...months].sort((a, b) => a[0] - b[0])) {
        if (done.has(month)) continue;
        await client.insert(t.clicks.text, rows, {
          max_insert_block_size: String(Math.max(DEFAULT_BLOCK_ROWS, rows.length + 1)),
        });
        wrote = true;
      }
      return wrote || (clicks.length === 0 && done.size === 0);
    },

    /**
     * Forgets batch ids written before `beforeMs`, a day of the ledger at a time (its partitions are the
     * server's days, so a margin of a day keeps any timezone's day whole). The writer calls it hourly,
     * which makes it the home of the outcome rollups' correction too (outcome-correction.ts).
     */
    async pruneBatchIds(beforeMs: number): Promise<void> {
      const parts = await client.rows<{ partition: string }>(
        sql`SELECT DISTINCT partition FROM system.parts
          WHERE database = ${t.database} AND table = 'click_batch_parts' AND active`,
      );
      for (const { partition } of parts) {
        if (!ISO_DATE.test(partition)) continue;
        if (Date.parse(`${partition}T00:00:00Z`) + 2 * DAY_MS > beforeMs) continue;
        await client.command(sql`ALTER TABLE ${t.batchParts} DROP PARTITION ${partition}`);
      }
      // After the ledger's pruning, and not within CORRECTION_RETRY_MS of a failed pass: the writer calls
      // this again at its next flush when it fails, and a failing pass must not rescan the outcome ledger
      // every flush.
      if (Date.now() - correctionFailed < CORRECTION_RETRY_MS) return;
      try {
        await correction.correctOutcomes();
      } catch (error) {
        correctionFailed = Date.now();
        throw error;
      }
    },

    /**
     * The tap's first outcome; false when the tap already has another. The same outcome at the same
     * instant is this row again (its first attempt stored it, then `within` or the answer failed), so it
     * is not inserted twice and `within` runs again: the held outcome and its webhook event are written
     * once between them. `within` runs in a transaction of the main database, where the outbox lives.
     * Two different first reports of one tap at the same moment (only when Redis, which redeems a token
     * once, is down) can both answer true and both reach the outcome rollups: the hourly correction
     * (outcome-correction.ts) takes the later one back; the clicks list reads the first alone at once.
     */
    async insertOutcome(
      o: OutcomeRow,
      within?: (trx: Transaction<Database>) => Promise<unknown>,
    ): Promise<boolean> {
      const [stamp] = await history.stamps([{ orgId: o.orgId, linkId: o.linkId, day: o.day }]);
      const row = outcomeRow(o, stamp);
      const [first] = await client.rows<{ outcome: string; at_ms: string }>(
        sql`SELECT outcome, toString(at) AS at_ms FROM ${t.outcomes}
          WHERE org_id = ${row.org_id} AND link_id = ${row.link_id} AND day = ${dayOf(o.day)}
            AND tap_id = ${row.tap_id}
          ORDER BY at, outcome LIMIT 1`,
      );
      if (first && (first.outcome !== row.outcome || Number(first.at_ms) !== row.at)) return false;
      if (!first) await client.insert(t.outcomes.text, [row]);
      if (within) await main.db.transaction().execute((trx) => within(trx));
      return true;
    },
  };
}
