import type { Kysely } from 'kysely';
import { folderGroup, tagGroup } from './group-rollups.js';
import { type AnalyticsDatabase, num, type Scope, WEEK, weekOf } from './rollups.js';

/** Epoch days (UTC), both ends included. */
export interface DayRange {
  from: number;
  to: number;
}

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

export const isWhole = (scope: Scope) => !scope.linkId && !scope.folderId && !scope.tag;

/**
 * The summary rows that answer a scope without per-link rows: the organization's for a whole
 * organization, a group's (migration 016) for exactly one folder or one tag; null when per-link rows must
 * be summed (one link, or a folder and a tag together).
 */
export function summaryOf(scope: Scope): { orgId: string; grp: string | null } | null {
  if (isWhole(scope)) return { orgId: scope.orgId, grp: null };
  if (scope.linkId || (scope.folderId && scope.tag)) return null;
  return {
    orgId: scope.orgId,
    grp: scope.folderId ? folderGroup(scope.folderId) : tagGroup(scope.tag ?? ''),
  };
}

type Summary = NonNullable<ReturnType<typeof summaryOf>>;

/** The rollup reads: the organization table for a whole organization, per-link rows for a filtered one. */
export function createRollupReads(db: Kysely<AnalyticsDatabase>) {
  /** The ids of the scope's links, as a subquery: no parameter list grows with a folder's size. */
  function linkIds(scope: Scope) {
    let q = db.selectFrom('links').select('links.id').where('links.org_id', '=', scope.orgId);
    if (scope.linkId) q = q.where('links.id', '=', scope.linkId);
    if (scope.folderId) q = q.where('links.folder_id', '=', scope.folderId);
    const tag = scope.tag;
    if (tag) {
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('link_tags')
            .select('link_tags.link_id')
            .whereRef('link_tags.link_id', '=', 'links.id')
            .where('link_tags.tag', '=', tag),
        ),
      );
    }
    return q;
  }

  /**
   * The scope's link ids, resolved first: concrete ids let both planners walk the (link, day) key of each
   * link, where a subquery let PostgreSQL scan the whole table.
   */
  async function scopeIds(scope: Scope): Promise<string[]> {
    if (scope.linkId && !scope.folderId && !scope.tag) return [scope.linkId];
    return (await linkIds(scope).execute()).map((row) => row.id);
  }

  /** Per-link rows of the scope's links, 500 ids per query. */
  async function eachChunk(scope: Scope, run: (ids: string[]) => Promise<void>): Promise<void> {
    const ids = await scopeIds(scope);
    for (let i = 0; i < ids.length; i += 500) await run(ids.slice(i, i + 500));
  }

  const linkRows = (orgId: string, ids: string[], range: DayRange) =>
    db
      .selectFrom('click_rollups as r')
      .where('r.org_id', '=', orgId)
      .where('r.link_id', 'in', ids)
      .where('r.day', '>=', range.from)
      .where('r.day', '<=', range.to);

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
   * A summary's rows: `org_rollups`, or `group_rollups` for one group. Both have the same columns but
   * `grp`, and the same key order, so one builder type serves (the group one narrowed by its key first).
   */
  const summaryRows = (summary: Summary) =>
    summary.grp === null
      ? db.selectFrom('org_rollups').where('org_id', '=', summary.orgId)
      : (db
          .selectFrom('group_rollups')
          .where('org_id', '=', summary.orgId)
          .where('grp', '=', summary.grp) as unknown as ReturnType<typeof orgRows>);
  const orgRows = (orgId: string) => db.selectFrom('org_rollups').where('org_id', '=', orgId);

  /** One clean key range per query (dimension, then days), summed across the ranges in memory. */
  async function summarySums(summary: Summary, dimensions: string[], window: DayRange): Promise<Sum[]> {
    const { days, weeks } = splitWindow(window);
    const parts = days.map((range) => ({ range, dimensions }));
    if (weeks) parts.push({ range: weeks, dimensions: dimensions.map((dimension) => `${dimension}${WEEK}`) });
    const totals = new Map<string, Sum>();
    for (const part of parts) {
      const rows = await summaryRows(summary)
        .select(['dimension', 'value'])
        .select((eb) => eb.fn.sum<string | number>('count').as('clicks'))
        .where('dimension', 'in', part.dimensions)
        .where('day', '>=', part.range.from)
        .where('day', '<=', part.range.to)
        .groupBy(['dimension', 'value'])
        .execute();
      merge(totals, rows);
    }
    // A group's rows can sum to zero (a link moved out of it since): such values are not shown.
    return [...totals.values()].filter((sum) => sum.clicks !== 0);
  }

  return {
    linkIds,

    /** Sums per (dimension, value) over the scope and window. */
    async sums(scope: Scope, dimensions: string[], window: DayRange): Promise<Sum[]> {
      const summary = summaryOf(scope);
      if (summary) return summarySums(summary, dimensions, window);
      const totals = new Map<string, Sum>();
      await eachChunk(scope, async (ids) => {
        const rows = await linkRows(scope.orgId, ids, window)
          .select(['r.dimension', 'r.value'])
          .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
          .where('r.dimension', 'in', dimensions)
          .groupBy(['r.dimension', 'r.value'])
          .execute();
        merge(totals, rows);
      });
      return [...totals.values()];
    },

    /** Human clicks per epoch day. */
    async daily(scope: Scope, window: DayRange): Promise<Map<number, number>> {
      const byDay = new Map<number, number>();
      const add = (rows: { day: number; clicks: unknown }[]) => {
        for (const row of rows) byDay.set(num(row.day), (byDay.get(num(row.day)) ?? 0) + num(row.clicks));
      };
      const summary = summaryOf(scope);
      if (summary) {
        add(
          await summaryRows(summary)
            .select(['day', 'count as clicks'])
            .where('dimension', '=', 'total')
            .where('day', '>=', window.from)
            .where('day', '<=', window.to)
            .execute(),
        );
        return byDay;
      }
      await eachChunk(scope, async (ids) => {
        add(
          await linkRows(scope.orgId, ids, window)
            .select('r.day')
            .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
            .where('r.dimension', '=', 'total')
            .groupBy('r.day')
            .execute(),
        );
      });
      return byDay;
    },

    /** Clicks per link id of the scope. */
    async linkTotals(scope: Scope, window: DayRange): Promise<{ id: string; clicks: number }[]> {
      const summary = summaryOf(scope);
      if (summary)
        return (await summarySums(summary, ['link'], window)).map((row) => ({
          id: row.value,
          clicks: row.clicks,
        }));
      const out: { id: string; clicks: number }[] = [];
      await eachChunk(scope, async (ids) => {
        const rows = await linkRows(scope.orgId, ids, window)
          .select('r.link_id as id')
          .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
          .where('r.dimension', '=', 'total')
          .groupBy('r.link_id')
          .execute();
        for (const row of rows) out.push({ id: row.id, clicks: num(row.clicks) });
      });
      return out;
    },

    /** Sums per (link, dimension, value) for the given links of one organization. */
    async linkSums(orgId: string, ids: readonly string[], dimensions: string[], window: DayRange) {
      const out: (Sum & { linkId: string })[] = [];
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await linkRows(orgId, ids.slice(i, i + 500), window)
          .select(['r.link_id', 'r.dimension', 'r.value'])
          .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
          .where('r.dimension', 'in', dimensions)
          .groupBy(['r.link_id', 'r.dimension', 'r.value'])
          .execute();
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
