import type { Kysely } from 'kysely';
import type { Store } from '../store/database.js';
import { CLICKS_TABLE, clickValues, insertMany, sqliteHandle, writeIncrements } from './bulk-insert.js';
import type { ClickInput } from './click-buffer.js';
import { createRollupReads, type DayRange, isWhole } from './rollup-reads.js';
import {
  type AnalyticsDatabase,
  addClick,
  addOutcome,
  createTimeOrderedIds,
  cut,
  type ExportRow,
  Increments,
  num,
  type OutcomeRow,
  type Scope,
  toRow,
} from './rollups.js';

export type { DayRange } from './rollup-reads.js';
export {
  DAY_MS,
  type ExportRow,
  OUTCOMES,
  type Outcome,
  type OutcomeRow,
  type Scope,
  SEP,
} from './rollups.js';

/**
 * Analytics store queries. Writes keep the rollups in step with the raw rows in the same transaction;
 * reads answer from the rollups (rollup-reads.ts) and only the clicks list and the export read raw rows.
 */

export function createAnalyticsRepo(store: Store) {
  const db = store.db as unknown as Kysely<AnalyticsDatabase>;

  const reads = createRollupReads(db);
  const sqlite = store.sqlite ? sqliteHandle(store.sqlite) : undefined;
  return {
    ...reads,

    /** One transaction: the raw rows and every rollup increment of the batch. */
    async writeClicks(
      clicks: readonly ClickInput[],
      id: (at: number) => string = createTimeOrderedIds(),
    ): Promise<void> {
      const rows = clicks.map((click) => toRow(click, id(click.at)));
      const inc = new Increments();
      for (const row of rows) addClick(inc, row);
      await db.transaction().execute(async (trx) => {
        await insertMany(trx, store.dialect, CLICKS_TABLE, rows.map(clickValues), sqlite);
        await writeIncrements(trx, store.dialect, inc, sqlite);
      });
    },

    /** Stores a tap's outcome and its rollups; false when the tap already has one (the first wins). */
    async insertOutcome(o: OutcomeRow): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('tap_outcomes')
          .values({
            tap_id: o.tapId,
            org_id: o.orgId,
            link_id: o.linkId,
            day: o.day,
            outcome: o.outcome,
            variant: o.variant,
            platform_key: cut(o.platformKey, 32),
            at: o.at,
          })
          .onConflict((oc) => oc.column('tap_id').doNothing())
          .returning('tap_id')
          .executeTakeFirst();
        if (!inserted) return false;
        const inc = new Increments();
        addOutcome(inc, o);
        await writeIncrements(trx, store.dialect, inc);
        return true;
      });
    },

    /** The scope's links by clicks, most first (slug breaks ties), at most `limit`. */
    async perLink(scope: Scope, window: DayRange, limit: number) {
      const ranked = (await reads.linkTotals(scope, window)).sort((a, b) => b.clicks - a.clicks);
      // Slugs only for the links that can make the list: the top `limit` and whoever ties the last of them.
      const floor = ranked[limit - 1]?.clicks ?? 0;
      const candidates = ranked.filter((row, i) => i < limit || row.clicks === floor);
      const slugs = new Map<string, string>();
      for (let i = 0; i < candidates.length; i += 500) {
        const ids = candidates.slice(i, i + 500).map((row) => row.id);
        const rows = await db
          .selectFrom('links')
          .select(['id', 'slug'])
          .where('org_id', '=', scope.orgId)
          .where('id', 'in', ids)
          .execute();
        for (const row of rows) slugs.set(row.id, row.slug);
      }
      return candidates
        .flatMap((row) => {
          const slug = slugs.get(row.id);
          return slug === undefined ? [] : [{ slug, clicks: row.clicks }];
        })
        .sort((a, b) => b.clicks - a.clicks || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
        .slice(0, limit);
    },

    /** One link's human clicks, newest first, each with its tap's outcome when one was reported. */
    async clicks(linkId: string, fromMs: number, limit: number, offset: number) {
      const rows = await db
        .selectFrom('clicks')
        .leftJoin('tap_outcomes', 'tap_outcomes.tap_id', 'clicks.tap_id')
        .select(['clicks.id', 'clicks.at', 'clicks.source_app', 'clicks.country', 'clicks.city'])
        .select(['clicks.device', 'clicks.tap_id', 'tap_outcomes.outcome'])
        // The caller has checked that the link is the organization's; the org filter is not repeated so the
        // (link, at, id) index is the only one that fits and a page never scans the organization's clicks.
        .where('clicks.link_id', '=', linkId)
        .where('clicks.bot', '=', 0)
        .where('clicks.at', '>=', fromMs)
        .orderBy('clicks.at', 'desc')
        .orderBy('clicks.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({ ...row, at: num(row.at) }));
    },

    /** Raw human clicks of the scope in time order, a page at a time (keyset, so memory stays flat). */
    async *exportPages(scope: Scope, fromMs: number, pageSize = 5000): AsyncGenerator<ExportRow[]> {
      let after: { at: number; id: string } | null = null;
      for (;;) {
        let q = db
          .selectFrom('clicks')
          .innerJoin('links', 'links.id', 'clicks.link_id')
          .leftJoin('tap_outcomes', 'tap_outcomes.tap_id', 'clicks.tap_id')
          .select([
            'clicks.id',
            'clicks.at',
            'clicks.link_id',
            'links.slug',
            'clicks.variant',
            'clicks.routed',
          ])
          .select(['clicks.country', 'clicks.city', 'clicks.device', 'clicks.source_app'])
          .select(['clicks.referrer_host', 'clicks.platform_key', 'clicks.tap_id', 'tap_outcomes.outcome'])
          .where('clicks.org_id', '=', scope.orgId)
          .where('clicks.bot', '=', 0)
          .where('clicks.at', '>=', fromMs);
        if (!isWhole(scope)) q = q.where('clicks.link_id', 'in', reads.linkIds(scope));
        const cursor = after;
        if (cursor) {
          q = q.where((eb) =>
            eb.or([
              eb('clicks.at', '>', cursor.at),
              eb.and([eb('clicks.at', '=', cursor.at), eb('clicks.id', '>', cursor.id)]),
            ]),
          );
        }
        const rows = await q
          .orderBy('clicks.at', 'asc')
          .orderBy('clicks.id', 'asc')
          .limit(pageSize)
          .execute();
        const page = rows.map((row) => ({ ...row, at: num(row.at) }));
        if (page.length > 0) yield page;
        const last = page.at(-1);
        if (!last || page.length < pageSize) return;
        after = { at: last.at, id: last.id };
      }
    },
  };
}

export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;
