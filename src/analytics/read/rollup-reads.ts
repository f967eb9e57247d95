import {
  type DayRange,
  folderGroup,
  isWhole,
  num,
  type Scope,
  tagGroup,
  topBySlug,
  WEEK,
  weekOf,
} from '../model.js';
import type { RollupRepo, Summary } from './rollup-repo.js';

export interface Sum {
  dimension: string;
  value: string;
  clicks: number;
}

/**
 * Splits a window into the whole 7-day blocks inside it and the days at either edge. A 90-day window is
 * then 12 blocks and at most 12 days: the organization read sums ~25 rows per value instead of 90.
 */
export function splitWindow(window: DayRange): { days: DayRange[]; weeks: DayRange | null } {
  const firstBlock = Math.ceil(window.from / 7) * 7;
  const lastBlock = weekOf(window.to + 1) - 7;
  if (firstBlock > lastBlock) return { days: [window], weeks: null };
  const days = [
    { from: window.from, to: firstBlock - 1 },
    { from: lastBlock + 7, to: window.to },
  ].filter((range) => range.from <= range.to);
  return { days, weeks: { from: firstBlock, to: lastBlock } };
}

/**
 * The summary rows that answer a scope without per-link rows: the organization's for a whole
 * organization, a group's (migration 016) for exactly one folder or one tag; null when per-link rows must
 * be summed (one link, or a folder and a tag together).
 */
export function summaryOf(scope: Scope): Summary | null {
  if (isWhole(scope)) return { orgId: scope.orgId, grp: null };
  if (scope.linkId || (scope.folderId && scope.tag)) return null;
  return {
    orgId: scope.orgId,
    grp: scope.folderId ? folderGroup(scope.folderId) : tagGroup(scope.tag ?? ''),
  };
}

/** Adds rows into sums keyed by dimension and value. */
function merge(totals: Map<string, Sum>, rows: { dimension: string; value: string; clicks: unknown }[]) {
  for (const row of rows) {
    const dimension = row.dimension.endsWith(WEEK) ? row.dimension.slice(0, -WEEK.length) : row.dimension;
    const key = `${dimension}\n${row.value}`;
    const sum = totals.get(key) ?? { dimension, value: row.value, clicks: 0 };
    sum.clicks += num(row.clicks);
    totals.set(key, sum);
  }
}

/**
 * The rollup reads: the organization table for a whole organization, a group's for one folder or tag,
 * per-link rows for any other filter (rollup-repo.ts holds their SQL).
 */
export function createRollupReads(repo: RollupRepo) {
  /**
   * The scope's link ids, resolved first: concrete ids let both planners walk the (link, day) key of each
   * link, where a subquery let PostgreSQL scan the whole table.
   */
  async function scopeIds(scope: Scope): Promise<string[]> {
    if (scope.linkId && !scope.folderId && !scope.tag) return [scope.linkId];
    return repo.scopeLinkIds(scope);
  }

  /** Per-link rows of the scope's links, 500 ids per query. */
  async function eachChunk(scope: Scope, run: (ids: string[]) => Promise<void>): Promise<void> {
    const ids = await scopeIds(scope);
    for (let i = 0; i < ids.length; i += 500) await run(ids.slice(i, i + 500));
  }

  /** One clean key range per query (dimension, then days), summed across the ranges in memory. */
  async function summarySums(summary: Summary, dimensions: string[], window: DayRange): Promise<Sum[]> {
    const { days, weeks } = splitWindow(window);
    const parts = days.map((range) => ({ range, dimensions }));
    if (weeks) parts.push({ range: weeks, dimensions: dimensions.map((dimension) => `${dimension}${WEEK}`) });
    const totals = new Map<string, Sum>();
    for (const part of parts) merge(totals, await repo.summarySums(summary, part.dimensions, part.range));
    // A group's rows can sum to zero (a link moved out of it since): such values are not shown.
    return [...totals.values()].filter((sum) => sum.clicks !== 0);
  }

  /** Sums per (dimension, value) over the scope and window. */
  async function sums(scope: Scope, dimensions: string[], window: DayRange): Promise<Sum[]> {
    const summary = summaryOf(scope);
    if (summary) return summarySums(summary, dimensions, window);
    const totals = new Map<string, Sum>();
    await eachChunk(scope, async (ids) => {
      merge(totals, await repo.linkRowSums(scope.orgId, ids, dimensions, window));
    });
    return [...totals.values()];
  }

  /** Human clicks per epoch day. */
  async function daily(scope: Scope, window: DayRange): Promise<Map<number, number>> {
    const byDay = new Map<number, number>();
    const add = (rows: { day: number; clicks: unknown }[]) => {
      for (const row of rows) byDay.set(num(row.day), (byDay.get(num(row.day)) ?? 0) + num(row.clicks));
    };
    const summary = summaryOf(scope);
    if (summary) {
      add(await repo.summaryDays(summary, window));
      return byDay;
    }
    await eachChunk(scope, async (ids) => {
      add(await repo.linkRowDays(scope.orgId, ids, window));
    });
    return byDay;
  }

  /** Clicks per link id of the scope. */
  async function linkTotals(scope: Scope, window: DayRange): Promise<{ id: string; clicks: number }[]> {
    const summary = summaryOf(scope);
    if (summary)
      return (await summarySums(summary, ['link'], window)).map((row) => ({
        id: row.value,
        clicks: row.clicks,
      }));
    const out: { id: string; clicks: number }[] = [];
    await eachChunk(scope, async (ids) => {
      const rows = await repo.linkRowTotals(scope.orgId, ids, window);
      for (const row of rows) out.push({ id: row.id, clicks: num(row.clicks) });
    });
    return out;
  }

  return {
    sums,
    daily,
    linkTotals,

    /** The scope's links by clicks, most first (slug breaks ties), at most `limit`. */
    async perLink(scope: Scope, window: DayRange, limit: number) {
      return topBySlug(await linkTotals(scope, window), limit, async (ids) => {
        const slugs = new Map<string, string>();
        for (let i = 0; i < ids.length; i += 500)
          for (const row of await repo.slugsOf(scope.orgId, ids.slice(i, i + 500)))
            slugs.set(row.id, row.slug);
        return slugs;
      });
    },

    /** Sums per (link, dimension, value) for the given links of one organization. */
    async linkSums(orgId: string, ids: readonly string[], dimensions: string[], window: DayRange) {
      const out: (Sum & { linkId: string })[] = [];
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await repo.linkRowSumsByLink(orgId, ids.slice(i, i + 500), dimensions, window);
        for (const row of rows)
          out.push({
            linkId: row.link_id,
            dimension: row.dimension,
            value: row.value,
            clicks: num(row.clicks),
          });
      }
      return out;
    },
  };
}

export type RollupReads = ReturnType<typeof createRollupReads>;
