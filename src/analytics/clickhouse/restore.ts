import { createHash } from 'node:crypto';
import type { AnalyticsStore } from '../repo.js';
import type { ClickhouseClient } from './client.js';
import type { BatchSlice, RestoreSource, SliceCursor } from './restore-source.js';

/**
 * `linkhop analytics backfill --to main`: the way back. What the service wrote to ClickHouse (every
 * `clicks` row but the forward backfill's, every tap's first outcome) copied into the main database
 * through the SQL store's own writes, month by month, oldest first; run once every instance is back on
 * the main database, so that ClickHouse takes no more writes.
 *
 * 1. Clicks, by the service's batches: a batch's rows of a month (a slice) were written by one INSERT
 *    and never change. The month's slices in (first click, batch id) order are cut into groups of about
 *    `chunkClicks` clicks, each written by one `writeClicks` under `ch-<month>-<first batch id>`, rows in
 *    slice order then the batch's own (seq).
 * 2. Outcomes: each tap's first (FIRST_OUTCOME) through `insertOutcome`, where a tap the main database
 *    already holds (the forward backfill copied it from there, or it was reported there) keeps its own.
 *    A tap is its own key, so a page done twice adds nothing.
 *
 * Exactly once: `restore_checkpoint` (a StripeLog in ClickHouse, made by this command only, as
 * `backfill_checkpoint` for the forward copy) gets a group's exact range of slices before its write
 * (`started`) and `done` right after. A run skips what is done, writes a group found started and not done
 * again with the same slices under the same id, which the SQL ledger (`click_batches`) refuses if the
 * first write landed, and carries on after it. The ledger forgets ids after 7 days: only a group started
 * and never recorded (a crash in the instant between its commit and its `done`) and run again later than
 * that could count twice, and that run says so.
 *
 * Not copied: clicks ClickHouse dropped (CLICK_RETENTION_DAYS drops months of raw clicks and keeps their
 * rollups), named up front as months with rollups and no raw click. One restore runs at a time.
 */

export interface RestoreOptions {
  source: RestoreSource;
  /** The main database's analytics store (the SQL one). */
  store: Pick<AnalyticsStore, 'writeClicks' | 'insertOutcome'>;
  client: ClickhouseClient;
  database: string;
  /** Clicks a group reaches before it is written (a group ends at a slice's end). */
  chunkClicks?: number;
  /** Stop after this many groups this run (a test, or an operator spreading the work). */
  maxChunks?: number;
  log: (line: string) => void;
}

export interface RestoreReport {
  months: number;
  groups: number;
  clicks: number;
  /** Groups the SQL ledger refused: written by a run that stopped before recording them. */
  refusedGroups: number;
  outcomes: number;
  /** Taps whose outcome the main database already held. */
  outcomesHeld: number;
  /** Months ClickHouse has rollups of and no raw click: not copied. */
  rollupOnlyMonths: number;
  /** ClickHouse's clicks or outcomes changed during the run: an instance still writes there. */
  clickhouseChanged: boolean;
  /** false when stopped by `maxChunks`: run again to carry on. */
  complete: boolean;
}

/** Slices read per query, and the most a group takes (its read's `IN` list). */
const SLICE_PAGE = 5000;
const OUTCOME_PAGE = 20_000;
/** insertOutcome calls in flight: one transaction each, a tap apiece. */
const OUTCOME_WRITERS = 8;
/** A progress line every this many groups, within a month. */
const PROGRESS_GROUPS = 25;
/** How long the main database's ledger keeps a batch id (click-buffer.ts, BATCH_ID_RETENTION_MS). */
const LEDGER_DAYS = 7;
/** The SQL ledger's id column (`click_batches.id`, varchar(64)). */
const MAX_ID = 64;

interface CheckpointRow {
  seq: number;
  month: number;
  step: 'clicks' | 'outcomes' | 'month';
  state: 'started' | 'done';
  from_at: number;
  from_key: string;
  to_at: number;
  to_key: string;
  group_id: string;
  rows: number;
}

interface RecordedGroup {
  from: SliceCursor;
  to: SliceCursor;
  groupId: string;
  done: boolean;
  /** When it was recorded (epoch seconds). */
  at: number;
}

const blank = { from_at: 0, from_key: '', to_at: 0, to_key: '', group_id: '', rows: 0 };

/** The checkpoint: read whole at start (a few rows per group), appended a row at a time. */
async function loadCheckpoint(client: ClickhouseClient, database: string) {
  await client.command(
    `CREATE TABLE IF NOT EXISTS ${database}.restore_checkpoint (seq UInt64, month UInt32, step String,
      state String, from_at UInt64, from_key String, to_at UInt64, to_key String, group_id String,
      rows UInt64, at DateTime) ENGINE = StripeLog`,
  );
  const loaded = await client.rows<Record<keyof CheckpointRow | 'at_s', string>>(
    `SELECT seq, month, step, state, from_at, from_key, to_at, to_key, group_id, rows,
      toUnixTimestamp(at) AS at_s FROM ${database}.restore_checkpoint ORDER BY seq`,
  );
  const monthsDone = new Set<number>();
  const groups = new Map<number, RecordedGroup>();
  const outcomesAfter = new Map<number, string>();
  let seq = 0;
  for (const row of loaded) {
    const month = Number(row.month);
    seq = Math.max(seq, Number(row.seq));
    if (row.step === 'month' && row.state === 'done') monthsDone.add(month);
    if (row.step === 'outcomes') outcomesAfter.set(month, row.to_key);
    if (row.step === 'clicks')
      groups.set(month, {
        from: { at: Number(row.from_at), batchId: row.from_key },
        to: { at: Number(row.to_at), batchId: row.to_key },
        groupId: row.group_id,
        done: row.state === 'done',
        at: Number(row.at_s),
      });
  }
  return {
    rows: loaded.length,
    monthDone: (month: number) => monthsDone.has(month),
    lastGroup: (month: number) => groups.get(month) ?? null,
    /** The last organization whose outcomes of the month are copied ('' for none). */
    outcomesAfter: (month: number) => outcomesAfter.get(month) ?? '',
    /** Written at once: a `started` must be stored before its write, a `done` as soon as it is true. */
    async record(row: Omit<CheckpointRow, 'seq'>): Promise<void> {
      seq += 1;
      const at = new Date().toISOString().slice(0, 19).replace('T', ' ');
      await client.insert(`${database}.restore_checkpoint`, [{ ...row, seq, at }]);
    },
  };
}

type Checkpoint = Awaited<ReturnType<typeof loadCheckpoint>>;

class Stop extends Error {}

const label = (month: number) => `${Math.floor(month / 100)}-${String(month % 100).padStart(2, '0')}`;
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const perSecond = (count: number, since: number, until = performance.now()) =>
  Math.round(count / Math.max((until - since) / 1000, 0.001));

/** The group's SQL ledger id: the month and its first batch id (hashed when that would not fit). */
export function groupIdOf(month: number, first: BatchSlice): string {
  const id = `ch-${month}-${first.batchId}`;
  if (id.length <= MAX_ID) return id;
  return `ch-${month}-${createHash('sha256').update(first.batchId).digest('hex').slice(0, 40)}`;
}

export async function restore(options: RestoreOptions): Promise<RestoreReport> {
  const { source, log } = options;
  const report: RestoreReport = {
    months: 0,
    groups: 0,
    clicks: 0,
    refusedGroups: 0,
    outcomes: 0,
    outcomesHeld: 0,
    rollupOnlyMonths: 0,
    clickhouseChanged: false,
    complete: true,
  };
  const checkpoint = await loadCheckpoint(options.client, options.database);
  if (checkpoint.rows > 0) log(`resuming from the checkpoint (${checkpoint.rows} rows)`);
  const counted = await source.rowCounts();
  const months = await source.months();
  report.rollupOnlyMonths = months.rollupsOnly.length;
  if (months.rollupsOnly.length > 0) {
    const clicks = await source.rollupClicks(months.rollupsOnly);
    const list = months.rollupsOnly.map((month) => `${label(month)}: ${clicks.get(month) ?? 0} clicks`);
    log(
      `not copied: ${plural(months.rollupsOnly.length, 'month')} with rollups in ClickHouse and no raw click ` +
        `(${list.join(', ')}): CLICK_RETENTION_DAYS dropped their clicks, or the forward backfill brought ` +
        'them from the main database as rollups; `linkhop analytics verify` over them names the links ' +
        'whose clicks the main database lacks',
    );
  }
  try {
    for (const month of months.copy) {
      if (checkpoint.monthDone(month)) continue;
      const started = performance.now();
      const before = { ...report };
      await copyClicks(options, checkpoint, report, month);
      const clicksDone = performance.now();
      await copyOutcomes(options, checkpoint, report, month);
      await checkpoint.record({ ...blank, month, step: 'month', state: 'done' });
      report.months += 1;
      const clicks = report.clicks - before.clicks;
      const taps = report.outcomes + report.outcomesHeld - before.outcomes - before.outcomesHeld;
      const seconds = (to: number, from: number) => ((to - from) / 1000).toFixed(1);
      // Clicks and outcomes apart: an outcome is a transaction of its own, a group thousands of clicks.
      log(
        `${label(month)}: ${clicks} clicks in ${plural(report.groups - before.groups, 'group')} in ` +
          `${seconds(clicksDone, started)} s (${perSecond(clicks, started, clicksDone)} clicks/s), ` +
          `${report.outcomes - before.outcomes} outcomes (${report.outcomesHeld - before.outcomesHeld} already ` +
          `held) in ${seconds(performance.now(), clicksDone)} s (${perSecond(taps, clicksDone)} taps/s)`,
      );
    }
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    report.complete = false;
    log(`stopped after ${report.groups} groups (--max-chunks): run the command again to carry on`);
  }
  const now = await source.rowCounts();
  if (now !== counted) {
    report.clickhouseChanged = true;
    log(
      `ClickHouse changed during the run (${counted}, then ${now}): an instance still writes there. ` +
        'Move every instance back to the main database (unset ANALYTICS_URL), then run this again',
    );
  }
  return report;
}

/** The month's slices as groups, each written once; a group recorded and not done first, as it was. */
async function copyClicks(
  options: RestoreOptions,
  checkpoint: Checkpoint,
  report: RestoreReport,
  month: number,
): Promise<void> {
  const { source, log } = options;
  const chunkClicks = options.chunkClicks ?? 100_000;
  const started = performance.now();
  let groups = 0;
  let clicks = 0;

  async function write(group: BatchSlice[], groupId: string, recorded: boolean): Promise<void> {
    const first = group[0] as BatchSlice;
    const last = group[group.length - 1] as BatchSlice;
    const range = {
      from_at: first.firstAt,
      from_key: first.batchId,
      to_at: last.firstAt,
      to_key: last.batchId,
    };
    const base = { ...range, month, step: 'clicks' as const, group_id: groupId };
    if (!recorded) await checkpoint.record({ ...base, state: 'started', rows: 0 });
    const rows = await source.clicksOf(month, group);
    const wrote = await options.store.writeClicks(rows, groupId);
    await checkpoint.record({ ...base, state: 'done', rows: wrote ? rows.length : 0 });
    report.groups += 1;
    groups += 1;
    if (wrote) {
      report.clicks += rows.length;
      clicks += rows.length;
    } else report.refusedGroups += 1;
    if (groups % PROGRESS_GROUPS === 0)
      log(
        `${label(month)}: ${groups} groups, ${clicks} clicks so far (${perSecond(clicks, started)} clicks/s)`,
      );
  }

  let after: SliceCursor | undefined;
  const last = checkpoint.lastGroup(month);
  if (last) {
    if (!last.done) {
      if (Date.now() / 1000 - last.at > (LEDGER_DAYS - 1) * 86_400)
        log(
          `group ${last.groupId} was started ${Math.floor((Date.now() / 1000 - last.at) / 86_400)} days ago ` +
            `and never recorded done; the main database's ledger keeps ids ${LEDGER_DAYS} days, so if that ` +
            'run wrote it, its clicks now count twice',
        );
      const redo = await source.slices(month, { from: last.from, upTo: last.to }, SLICE_PAGE + 1);
      if (redo.length > 0) await write(redo, last.groupId, true);
    }
    after = last.to;
  }
  let page: BatchSlice[] = [];
  let next = 0;
  for (;;) {
    const group: BatchSlice[] = [];
    let count = 0;
    while (count < chunkClicks && group.length < SLICE_PAGE) {
      if (next === page.length) {
        page = await source.slices(month, after ? { after } : {}, SLICE_PAGE);
        next = 0;
        if (page.length === 0) break;
      }
      const slice = page[next++] as BatchSlice;
      group.push(slice);
      count += slice.clicks;
      after = { at: slice.firstAt, batchId: slice.batchId };
    }
    if (group.length === 0) return;
    if (options.maxChunks !== undefined && report.groups >= options.maxChunks) throw new Stop();
    await write(group, groupIdOf(month, group[0] as BatchSlice), false);
  }
}

/**
 * The month's taps' first outcomes, organization after organization: each through insertOutcome (a tap
 * already held answers false and changes nothing), a few at once. The last organization done is recorded
 * so that a run after a stop starts after it; a unit done twice adds nothing.
 */
async function copyOutcomes(
  options: RestoreOptions,
  checkpoint: Checkpoint,
  report: RestoreReport,
  month: number,
): Promise<void> {
  const { source, store } = options;
  for (const unit of await source.outcomeUnits(month, checkpoint.outcomesAfter(month), OUTCOME_PAGE)) {
    const firsts = await source.firstOutcomes(month, unit);
    let next = 0;
    const writer = async () => {
      while (next < firsts.length) {
        const outcome = firsts[next++];
        if (!outcome) continue;
        if (await store.insertOutcome(outcome)) report.outcomes += 1;
        else report.outcomesHeld += 1;
      }
    };
    await Promise.all(Array.from({ length: OUTCOME_WRITERS }, writer));
    if (unit.endsOrg)
      await checkpoint.record({
        ...blank,
        month,
        step: 'outcomes',
        state: 'done',
        to_key: unit.orgIds[unit.orgIds.length - 1] ?? '',
        rows: firsts.length,
      });
  }
}
