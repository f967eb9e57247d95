import { CELL_OUTCOME } from '../escape-cells.js';
import { DAY_MS, WEEK } from '../model.js';
import type { AnalyticsStore } from '../repo.js';
import type { ClickInput } from '../write/click-input.js';
import { Increments } from '../write/increments.js';
import { addClicks, toRow } from '../write/rollups.js';
import { type Checkpoint, loadCheckpoint, noRange } from './backfill-checkpoint.js';
import {
  type BackfillSource,
  type BlockCursor,
  clickInputOf,
  monthStart,
  nextMonth,
  type SourceBlock,
  type SqlRollup,
} from './backfill-source.js';
import { applyBackfillSchema } from './backfill-tables.js';
import type { ClickhouseClient } from './client.js';
import type { GroupHistory } from './group-history.js';
import { dayOf, sql } from './literal.js';
import { isoDay, outcomeRow } from './rows.js';
import { ROLLUP_DIMENSIONS, type Tables } from './schema.js';

/**
 * `linkhop analytics backfill --to clickhouse`: the main database's analytics (the SQL store) copied
 * into ClickHouse, month by month, oldest first; in each month organization by organization:
 *
 * 1. Raw clicks, bots included, in chunks of about `chunkClicks`, each through the store's own
 *    `writeClicks` under a batch id fixed by its first block (`backfill-<month>-<org>-<at>-<id>`), so
 *    ClickHouse's views build the rollups as they do for live clicks and the exactly-once ledger makes a
 *    chunk written twice (a crash between its insert and its checkpoint) count once.
 * 2. The rollups those raw clicks do not rebuild, day by day: the SQL store's rollup rows less what the
 *    raw clicks it still has add up to. That is every day older than its raw retention
 *    (CLICK_RETENTION_DAYS drops raw blocks, never rollups), and the escape cells' taps (a raw block
 *    does not keep the page's strategy). They go through `backfill_rollups`, whose views add them to the
 *    rollup tables and write their batch id (`backfill-rollups-<org>-<first day>`) into the same ledger.
 *    A rollup a raw click adds to but the SQL store does not have (none, unless rows were edited) cannot
 *    be taken away from a SummingMergeTree: it is counted in `mismatched` and shows in `verify`.
 * 3. The month's tap outcomes, as rows of `outcomes`, each tap once (copyOutcomes skips the taps
 *    already there: the outcome rollups' views count every row inserted, so the rollups follow). The SQL
 *    store's outcome rollups are not copied: its tap outcomes are never dropped by raw retention, and
 *    ClickHouse builds its own from them.
 *
 * The weekly organization rows (`/w`) are the SQL store's own shortcut and have no ClickHouse table.
 * Progress lines go to `log`; the checkpoint (backfill-checkpoint.ts) makes a run after a crash, or after
 * `maxChunks`, carry on where the last one stopped.
 */

export interface BackfillOptions {
  source: BackfillSource;
  /** The ClickHouse analytics store (its writeClicks). */
  store: Pick<AnalyticsStore, 'writeClicks'>;
  /** The links' group stamps (group-history.ts), for the outcomes and the rollups copied without clicks. */
  groups: Pick<GroupHistory, 'stamps'>;
  client: ClickhouseClient;
  tables: Tables;
  /** Clicks a chunk reaches before it is written (a chunk ends at a block's end). */
  chunkClicks?: number;
  /** Stop after this many raw chunks this run (a test, or an operator spreading the work). */
  maxChunks?: number;
  log: (line: string) => void;
}

export interface BackfillReport {
  months: number;
  chunks: number;
  clicks: number;
  outcomes: number;
  rollupRows: number;
  mismatched: number;
  /** false when stopped by `maxChunks`: run again to carry on. */
  complete: boolean;
}

const LINK_DIMENSIONS = [...ROLLUP_DIMENSIONS, 'variant'];
const ORG_DIMENSIONS = [...ROLLUP_DIMENSIONS, 'link'];
/** Blocks read per query. */
const PAGE = 200;
const OUTCOME_PAGE = 5000;
/** A row of `backfill_rollups`: a copied per-link or organization row, or a group row made from one. */
type RollupCopy = Omit<SqlRollup, 'kind'> & { kind: SqlRollup['kind'] | 'group' };
/** Rollup rows an INSERT of `backfill_rollups` gathers (a few days of a large organization). */
const ROLLUP_ROWS = 200_000;

class Stop extends Error {}

export async function backfill(options: BackfillOptions): Promise<BackfillReport> {
  const { source, client, tables, log } = options;
  const chunkClicks = options.chunkClicks ?? 100_000;
  await applyBackfillSchema(client, tables);
  const checkpoint = await loadCheckpoint(client, tables.database);
  const report: BackfillReport = {
    months: 0,
    chunks: 0,
    clicks: 0,
    outcomes: 0,
    rollupRows: 0,
    mismatched: 0,
    complete: true,
  };
  const range = await source.monthRange();
  if (range === null) {
    log('nothing to copy: the main database holds no clicks, rollups or outcomes');
    return report;
  }
  if (checkpoint.rows > 0) log(`resuming from the checkpoint (${checkpoint.rows} rows)`);
  const orgs = await source.organizations();
  try {
    for (let month = range.first; month <= range.last; month = nextMonth(month)) {
      if (checkpoint.monthDone(month)) continue;
      const started = performance.now();
      const before = { ...report };
      for (const orgId of orgs) await copyOrgMonth(options, checkpoint, report, month, orgId, chunkClicks);
      report.outcomes += await copyOutcomes(options, month);
      await checkpoint.record({ ...noRange, month, org_id: '', step: 'month', state: 'done' });
      await checkpoint.flush();
      report.months += 1;
      const seconds = (performance.now() - started) / 1000;
      const clicks = report.clicks - before.clicks;
      log(
        `${label(month)}: ${clicks} clicks in ${report.chunks - before.chunks} chunks, ` +
          `${report.outcomes - before.outcomes} outcomes, ${report.rollupRows - before.rollupRows} rollup rows ` +
          `in ${seconds.toFixed(1)} s (${Math.round(clicks / Math.max(seconds, 0.001))} clicks/s)`,
      );
    }
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    await checkpoint.flush();
    report.complete = false;
    log(`stopped after ${report.chunks} chunks (--max-chunks): run the backfill again to carry on`);
  }
  return report;
}

const label = (month: number) => `${Math.floor(month / 100)}-${String(month % 100).padStart(2, '0')}`;

async function copyOrgMonth(
  options: BackfillOptions,
  checkpoint: Checkpoint,
  report: BackfillReport,
  month: number,
  orgId: string,
  chunkClicks: number,
): Promise<void> {
  if (checkpoint.orgDone(month, orgId)) return;
  const { source } = options;
  const fromMs = monthStart(month);
  const toMs = monthStart(nextMonth(month));
  const base = { month, org_id: orgId };

  /** Writes one chunk: its range recorded first, so a crash before `done` redoes exactly it. */
  async function write(blocks: SourceBlock[], batchId: string, recorded: boolean): Promise<void> {
    const first = blocks[0] as SourceBlock;
    const last = blocks[blocks.length - 1] as SourceBlock;
    const range = { from_at: first.firstAt, from_id: first.id, to_at: last.firstAt, to_id: last.id };
    const clicks: ClickInput[] = blocks.flatMap((block) =>
      block.clicks.map((click) => clickInputOf(orgId, block.linkId, click)),
    );
    if (!recorded)
      await checkpoint.record({
        ...base,
        ...range,
        step: 'raw',
        state: 'started',
        batch_id: batchId,
        rows: 0,
      });
    await options.store.writeClicks(clicks, batchId);
    await checkpoint.record({
      ...base,
      ...range,
      step: 'raw',
      state: 'done',
      batch_id: batchId,
      rows: clicks.length,
    });
    report.chunks += 1;
    report.clicks += clicks.length;
  }

  let after: BlockCursor | null = null;
  const last = checkpoint.lastRaw(month, orgId);
  if (last) {
    if (!last.done) {
      const redo = await readAll(
        source,
        orgId,
        fromMs,
        toMs,
        { at: last.from.at, id: last.from.id - 1 },
        last.to,
      );
      if (redo.length > 0) await write(redo, last.batchId, true);
    }
    after = last.to;
  }
  for (;;) {
    const chunk: SourceBlock[] = [];
    let clicks = 0;
    for (;;) {
      const page = await source.blocks(orgId, fromMs, toMs, after, PAGE);
      for (const block of page) {
        chunk.push(block);
        clicks += block.clicks.length;
        after = { at: block.firstAt, id: block.id };
        if (clicks >= chunkClicks) break;
      }
      if (clicks >= chunkClicks || page.length < PAGE) break;
    }
    if (chunk.length === 0) break;
    if (options.maxChunks !== undefined && report.chunks >= options.maxChunks) throw new Stop();
    const first = chunk[0] as SourceBlock;
    await write(chunk, `backfill-${month}-${orgId}-${first.firstAt}-${first.id}`, false);
  }

  const rollups = await copyRollups(options, month, orgId);
  rollups.rows += await copyCellOutcomes(options, month, orgId);
  report.rollupRows += rollups.rows;
  report.mismatched += rollups.mismatched;
  await checkpoint.record({ ...noRange, ...base, step: 'rollups', state: 'done', rows: rollups.rows });
}

/** Every block of the range, however many pages. */
async function readAll(
  source: BackfillSource,
  orgId: string,
  fromMs: number,
  toMs: number,
  after: BlockCursor,
  upTo: BlockCursor,
): Promise<SourceBlock[]> {
  const all: SourceBlock[] = [];
  let cursor = after;
  for (;;) {
    const page = await source.blocks(orgId, fromMs, toMs, cursor, PAGE, upTo);
    all.push(...page);
    const last = page[page.length - 1];
    if (!last || page.length < PAGE) return all;
    cursor = { at: last.firstAt, id: last.id };
  }
}

/**
 * The organization's rollups of the month that its raw clicks do not rebuild, worked out a day at a time
 * (a day's sums fit in memory for any organization) and inserted a few days at a time: one INSERT per
 * `ROLLUP_ROWS` rows, each once through the ledger under the id of its first day, the same on every run
 * over the same data.
 */
async function copyRollups(
  options: BackfillOptions,
  month: number,
  orgId: string,
): Promise<{ rows: number; mismatched: number }> {
  const { source } = options;
  const fromDay = monthStart(month) / DAY_MS;
  const toDay = monthStart(nextMonth(month)) / DAY_MS - 1;
  const stored = await source.rollups(orgId, fromDay, toDay, LINK_DIMENSIONS, ORG_DIMENSIONS);
  if (stored.length === 0) return { rows: 0, mismatched: 0 };
  const span = await spanOf(source, orgId);
  const byDay = new Map<number, typeof stored>();
  for (const row of stored) {
    const list = byDay.get(row.day);
    if (list) list.push(row);
    else byDay.set(row.day, [row]);
  }
  let rows = 0;
  let mismatched = 0;
  let waiting: (Record<string, unknown> & { clicks: number })[] = [];
  let firstDay = 0;
  async function insert(): Promise<void> {
    if (waiting.length === 0) return;
    const batchId = `backfill-rollups-${orgId}-${firstDay}`;
    if (await insertOnce(options, 'backfill_rollups', batchId, waiting)) rows += waiting.length;
    waiting = [];
  }
  for (const [day, sqlRows] of [...byDay].sort((a, b) => a[0] - b[0])) {
    const rebuilt = new Map<string, number>();
    const inc = new Increments();
    addClicks(inc, (await source.clicksIn(orgId, day * DAY_MS, (day + 1) * DAY_MS, span)).map(toRow));
    for (const row of inc.rows) {
      if (row.dimension.endsWith(WEEK)) continue;
      rebuilt.set(
        keyOf(row.link_id === '' ? 'org' : 'link', row.link_id, row.dimension, row.value),
        row.count,
      );
    }
    const copied: RollupCopy[] = [];
    for (const row of sqlRows) {
      const key = keyOf(row.kind, row.link_id, row.dimension, row.value);
      const left = row.clicks - (rebuilt.get(key) ?? 0);
      rebuilt.delete(key);
      if (left < 0) mismatched += 1;
      if (left <= 0) continue;
      if (waiting.length === 0) firstDay = day;
      copied.push({ ...row, clicks: left });
    }
    for (const row of [...copied, ...(await groupRowsOf(options.groups, orgId, day, copied))])
      waiting.push({ ...row, org_id: orgId, day: isoDay(day), clicks: row.clicks });
    mismatched += rebuilt.size;
    if (waiting.length >= ROLLUP_ROWS) await insert();
  }
  await insert();
  return { rows, mismatched };
}

/**
 * The group rows of a day's per-link rows copied without their clicks, as the group view would have
 * counted those clicks: each row in every group its link is stamped with that day (`link_id` carries the
 * group, `kind` 'group'), `total` also as the group's `link` row. `variant` has no group row.
 */
async function groupRowsOf(
  groups: Pick<GroupHistory, 'stamps'>,
  orgId: string,
  day: number,
  rows: readonly RollupCopy[],
): Promise<RollupCopy[]> {
  const linkRows = rows.filter((row) => row.kind === 'link' && row.dimension !== 'variant');
  if (linkRows.length === 0) return [];
  const stamps = await groups.stamps(linkRows.map((row) => ({ orgId, linkId: row.link_id, day })));
  return linkRows.flatMap((row, i) =>
    (stamps[i] ?? []).flatMap((grp) => [
      { ...row, kind: 'group' as const, link_id: grp },
      ...(row.dimension === 'total'
        ? [{ ...row, kind: 'group' as const, link_id: grp, dimension: 'link', value: row.link_id }]
        : []),
    ]),
  );
}

/**
 * The organization's escape-cell outcome counts of the month (`cell_outcome`), which its tap outcome
 * rows cannot rebuild (a row lacks the tap's in-app browser, OS and strategy, so the outcomes copied in
 * have no cell). They go in through `backfill_outcome_rollups` into the outcome rollups per link, per
 * organization and, stamped, per group, once: the month's rows are one INSERT under one batch id, which
 * the ledger refuses a second time. The every-organization sum (`*`) is not copied: ClickHouse sums the
 * organizations' rows for it.
 */
async function copyCellOutcomes(options: BackfillOptions, month: number, orgId: string): Promise<number> {
  const { source } = options;
  const fromDay = monthStart(month) / DAY_MS;
  const toDay = monthStart(nextMonth(month)) / DAY_MS - 1;
  const stored = await source.rollups(orgId, fromDay, toDay, [CELL_OUTCOME], [CELL_OUTCOME]);
  if (stored.length === 0) return 0;
  const groups: RollupCopy[] = [];
  for (const day of new Set(stored.map((row) => row.day)))
    groups.push(
      ...(
        await groupRowsOf(
          options.groups,
          orgId,
          day,
          stored.filter((row) => row.day === day),
        )
      ).filter((row) => row.dimension === CELL_OUTCOME),
    );
  const rows = [...stored, ...groups].map((row) => ({
    kind: row.kind,
    org_id: orgId,
    link_id: row.link_id,
    day: isoDay(row.day),
    dimension: row.dimension,
    value: row.value,
    taps: row.clicks,
  }));
  const inserted = await insertOnce(
    options,
    'backfill_outcome_rollups',
    `backfill-cells-${orgId}-${month}`,
    rows,
  );
  return inserted ? rows.length : 0;
}

/**
 * Rows into one of the backfill's `Null` tables (backfill-tables.ts) under `batchId`, as one block, unless
 * the ledger already holds that id (a run again after a crash before its checkpoint): false then.
 */
async function insertOnce(
  options: BackfillOptions,
  table: 'backfill_rollups' | 'backfill_outcome_rollups',
  batchId: string,
  rows: readonly object[],
): Promise<boolean> {
  const { client, tables } = options;
  const [seen] = await client.rows<{ n: string }>(
    sql`SELECT count() AS n FROM ${tables.batchParts} WHERE batch_id = ${batchId}`,
  );
  if (Number(seen?.n ?? 0) > 0) return false;
  await client.insert(
    `${tables.database}.${table}`,
    rows.map((row) => ({ batch_id: batchId, ...row })),
    { max_insert_block_size: String(Math.max(1_048_576, rows.length + 1)) },
  );
  return true;
}

/** Each organization's longest block, read once a run (a pass over its block headers). */
const spans = new WeakMap<BackfillSource, Map<string, number>>();
async function spanOf(source: BackfillSource, orgId: string): Promise<number> {
  const known = spans.get(source) ?? new Map<string, number>();
  spans.set(source, known);
  const span = known.get(orgId) ?? (await source.longestBlock(orgId));
  known.set(orgId, span);
  return span;
}

const keyOf = (kind: string, linkId: string, dimension: string, value: string) =>
  `${kind}\n${linkId}\n${dimension}\n${value}`;

/**
 * The month's tap outcomes, a page at a time, each tap once: a page inserts only the taps ClickHouse does
 * not hold yet, so a page written again (a crash before its month's checkpoint, a run after a stop) or a
 * tap a live service reported there first adds nothing. It must: the outcome rollups count every row
 * inserted. One backfill runs at a time (backfill-checkpoint.ts), and a page is one block, so one part.
 */
async function copyOutcomes(options: BackfillOptions, month: number): Promise<number> {
  const { client, tables } = options;
  const fromDay = monthStart(month) / DAY_MS;
  const toDay = monthStart(nextMonth(month)) / DAY_MS - 1;
  let after = '';
  let copied = 0;
  for (;;) {
    const page = await options.source.outcomes(fromDay, toDay, after, OUTCOME_PAGE);
    if (page.length === 0) return copied;
    const held = sql`SELECT DISTINCT tap_id FROM ${tables.outcomes}
      WHERE day >= ${dayOf(fromDay)} AND day <= ${dayOf(toDay)} AND tap_id IN ${page.map((o) => o.tapId)}`;
    const present = new Set(
      (
        await client.rows<{ tap_id: string }>(held, {
          max_query_size: String(Math.max(262_144, held.length + 4096)),
        })
      ).map((row) => row.tap_id),
    );
    const fresh = page.filter((o) => !present.has(o.tapId));
    const stamps = await options.groups.stamps(
      fresh.map((o) => ({ orgId: o.orgId, linkId: o.linkId, day: o.day })),
    );
    await client.insert(
      tables.outcomes.text,
      fresh.map((o, i) => outcomeRow(o, stamps[i])),
      {
        max_insert_block_size: String(Math.max(1_048_576, fresh.length + 1)),
      },
    );
    copied += fresh.length;
    after = page[page.length - 1]?.tapId ?? after;
    if (page.length < OUTCOME_PAGE) return copied;
  }
}
