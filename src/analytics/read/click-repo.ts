import type { Kysely } from 'kysely';
import { type AnalyticsDatabase, isWhole, num, type Scope } from '../model.js';
import type { RollupRepo } from './rollup-repo.js';

/**
 * The SQL of the raw-click reads (click-reads.ts merges what they return): a link's block headers and
 * some blocks' data, the scope's blocks with their links' slugs for the export, and tap outcomes.
 */

/** A position in a link's blocks, newest first: the last block read. */
export interface NewestCursor {
  lastAt: number;
  id: number;
}

/** A position in the scope's blocks, oldest first: the last block read. */
export interface OldestCursor {
  firstAt: number;
  id: number;
}

export function createClickRepo(db: Kysely<AnalyticsDatabase>, linkIds: RollupRepo['linkIds']) {
  return {
    /** The reported outcomes of some tap ids (taps without one are absent). */
    tapOutcomes: (tapIds: string[]) =>
      db.selectFrom('tap_outcomes').select(['tap_id', 'outcome']).where('tap_id', 'in', tapIds).execute(),

    /**
     * Headers of one link's blocks that hold humans and end at `fromMs` or later, newest first, after
     * `cursor`: without their clicks.
     */
    async blockHeads(linkId: string, fromMs: number, cursor: NewestCursor | null, limit: number) {
      let query = db
        .selectFrom('click_blocks')
        .select(['id', 'first_at', 'last_at', 'humans'])
        .where('link_id', '=', linkId)
        .where('last_at', '>=', fromMs)
        .where('humans', '>', 0);
      if (cursor) {
        query = query.where((eb) =>
          eb.or([
            eb('last_at', '<', cursor.lastAt),
            eb.and([eb('last_at', '=', cursor.lastAt), eb('id', '<', cursor.id)]),
          ]),
        );
      }
      return query.orderBy('last_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    },

    /**
     * The packed clicks of some of one link's blocks, by block id. Their `last_at` range keeps the lookup to
     * a short stretch of the (link_id, last_at) index however many blocks the link has.
     */
    async blockData(
      linkId: string,
      heads: readonly { id: number | string; last_at: number | string }[],
    ): Promise<Map<number, string>> {
      const lasts = heads.map((head) => num(head.last_at));
      const rows = await db
        .selectFrom('click_blocks')
        .select(['id', 'data'])
        .where('link_id', '=', linkId)
        .where('last_at', '>=', Math.min(...lasts))
        .where('last_at', '<=', Math.max(...lasts))
        .where(
          'id',
          'in',
          heads.map((head) => num(head.id)),
        )
        .execute();
      return new Map(rows.map((row) => [num(row.id), row.data]));
    },

    /** The scope's blocks that hold humans and end at `fromMs` or later, with their link's slug, oldest first. */
    async exportBlocks(scope: Scope, fromMs: number, cursor: OldestCursor | null, limit: number) {
      let query = db
        .selectFrom('click_blocks as b')
        .innerJoin('links', 'links.id', 'b.link_id')
        .select(['b.id', 'b.first_at', 'b.link_id', 'b.data', 'links.slug'])
        .where('b.org_id', '=', scope.orgId)
        .where('b.last_at', '>=', fromMs)
        .where('b.humans', '>', 0);
      if (!isWhole(scope)) query = query.where('b.link_id', 'in', linkIds(scope));
      if (cursor) {
        query = query.where((eb) =>
          eb.or([
            eb('b.first_at', '>', cursor.firstAt),
            eb.and([eb('b.first_at', '=', cursor.firstAt), eb('b.id', '>', cursor.id)]),
          ]),
        );
      }
      return query.orderBy('b.first_at', 'asc').orderBy('b.id', 'asc').limit(limit).execute();
    },
  };
}

export type ClickRepo = ReturnType<typeof createClickRepo>;
