import type { Kysely } from 'kysely';
import type { AnalyticsDatabase, DayRange, Scope } from '../model.js';

/**
 * The SQL of the rollup reads (rollup-reads.ts decides which of them answers a scope, and sums what they
 * return): the scope's links, the summary rows of an organization or of one group, and the per-link rows.
 * Each query reads one clean key range; none reads a raw click.
 */

/** The summary rows that answer a scope: the organization's (`grp` null), or one folder's or tag's. */
export interface Summary {
  orgId: string;
  grp: string | null;
}

export function createRollupRepo(db: Kysely<AnalyticsDatabase>) {
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

  const linkRows = (orgId: string, ids: string[], range: DayRange) =>
    db
      .selectFrom('click_rollups as r')
      .where('r.org_id', '=', orgId)
      .where('r.link_id', 'in', ids)
      .where('r.day', '>=', range.from)
      .where('r.day', '<=', range.to);

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

  return {
    linkIds,

    /** The scope's link ids, resolved. */
    async scopeLinkIds(scope: Scope): Promise<string[]> {
      return (await linkIds(scope).execute()).map((row) => row.id);
    },

    /** A summary's sums per (dimension, value) over one range of days (one key range per query). */
    summarySums: (summary: Summary, dimensions: string[], range: DayRange) =>
      summaryRows(summary)
        .select(['dimension', 'value'])
        .select((eb) => eb.fn.sum<string | number>('count').as('clicks'))
        .where('dimension', 'in', dimensions)
        .where('day', '>=', range.from)
        .where('day', '<=', range.to)
        .groupBy(['dimension', 'value'])
        .execute(),

    /** A summary's human clicks per day. */
    summaryDays: (summary: Summary, window: DayRange) =>
      summaryRows(summary)
        .select(['day', 'count as clicks'])
        .where('dimension', '=', 'total')
        .where('day', '>=', window.from)
        .where('day', '<=', window.to)
        .execute(),

    /** Sums per (dimension, value) of some links' rows (at most 500 ids). */
    linkRowSums: (orgId: string, ids: string[], dimensions: string[], window: DayRange) =>
      linkRows(orgId, ids, window)
        .select(['r.dimension', 'r.value'])
        .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
        .where('r.dimension', 'in', dimensions)
        .groupBy(['r.dimension', 'r.value'])
        .execute(),

    /** Human clicks per day of some links' rows (at most 500 ids). */
    linkRowDays: (orgId: string, ids: string[], window: DayRange) =>
      linkRows(orgId, ids, window)
        .select('r.day')
        .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
        .where('r.dimension', '=', 'total')
        .groupBy('r.day')
        .execute(),

    /** Human clicks per link of some links' rows (at most 500 ids). */
    linkRowTotals: (orgId: string, ids: string[], window: DayRange) =>
      linkRows(orgId, ids, window)
        .select('r.link_id as id')
        .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
        .where('r.dimension', '=', 'total')
        .groupBy('r.link_id')
        .execute(),

    /** Sums per (link, dimension, value) of some links' rows (at most 500 ids). */
    linkRowSumsByLink: (orgId: string, ids: string[], dimensions: string[], window: DayRange) =>
      linkRows(orgId, ids, window)
        .select(['r.link_id', 'r.dimension', 'r.value'])
        .select((eb) => eb.fn.sum<string | number>('r.count').as('clicks'))
        .where('r.dimension', 'in', dimensions)
        .groupBy(['r.link_id', 'r.dimension', 'r.value'])
        .execute(),

    /** The slugs of some of the organization's links (at most 500 ids). */
    slugsOf: (orgId: string, ids: string[]) =>
      db
        .selectFrom('links')
        .select(['id', 'slug'])
        .where('org_id', '=', orgId)
        .where('id', 'in', ids)
        .execute(),
  };
}

export type RollupRepo = ReturnType<typeof createRollupRepo>;
