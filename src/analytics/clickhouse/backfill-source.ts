import type { Kysely } from 'kysely';
import type { Store } from '../../store/database.js';
import { type StoredClick, unpackBlock } from '../click-blocks.js';
import { type AnalyticsDatabase, DAY_MS, num, type Outcome, type OutcomeRow } from '../model.js';
import type { ClickInput } from '../write/click-input.js';

/**
 * What the backfill reads from the main database's analytics (the SQL store): months that hold anything,
 * an organization's raw blocks of a month a page at a time, its rollups of a month, the month's tap
 * outcomes. Every read walks an index the service already has: blocks by (org_id, first_at), link rollups
 * by their (link_id, day, ...) key, organization rollups by (org_id, dimension, day, ...).
 */

/** A position in an organization's blocks, oldest first (the export's order). */
export interface BlockCursor {
  at: number;
  id: number;
}

export interface SourceBlock {
  id: number;
  firstAt: number;
  linkId: string;
  clicks: StoredClick[];
}

export interface SqlRollup {
  kind: 'link' | 'org';
  link_id: string;
  day: number;
  dimension: string;
  value: string;
  clicks: number;
}

/** Month `YYYYMM` of an instant, and a month's first and next month's first instant. */
export const monthAt = (ms: number): number => {
  const date = new Date(ms);
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
};
export const monthStart = (month: number): number => Date.UTC(Math.floor(month / 100), (month % 100) - 1, 1);
export const nextMonth = (month: number): number =>
  monthAt(Date.UTC(Math.floor(month / 100), month % 100, 1));

/** Every stored click field back as the write path's input, so ClickHouse rows are made as live ones. */
export function clickInputOf(orgId: string, linkId: string, click: StoredClick): ClickInput {
  return {
    orgId,
    linkId,
    at: click.at,
    bot: click.bot,
    variant: click.variant,
    routed: click.routed,
    country: click.country,
    city: click.city,
    device: click.device as ClickInput['device'],
    sourceApp: click.sourceApp,
    referrerHost: click.referrerHost,
    platformKey: click.platformKey,
    tapId: click.tapId,
    ...(click.expired ? { expired: true } : {}),
    ...(click.source === 'qr' ? { source: 'qr' as const } : {}),
  };
}

export function createBackfillSource(store: Store) {
  const db = store.db as unknown as Kysely<AnalyticsDatabase>;

  async function linkIdsOf(orgId: string): Promise<string[]> {
    const rows = await db.selectFrom('links').select('id').where('org_id', '=', orgId).execute();
    return rows.map((row) => row.id);
  }

  return {
    /** The first and last month holding raw clicks, rollups or outcomes; null when there is nothing. */
    async monthRange(): Promise<{ first: number; last: number } | null> {
      const blocks = await db
        .selectFrom('click_blocks')
        .select((eb) => [eb.fn.min('first_at').as('lo'), eb.fn.max('last_at').as('hi')])
        .executeTakeFirst();
      const rollups = await db
        .selectFrom('org_rollups')
        .select((eb) => [eb.fn.min('day').as('lo'), eb.fn.max('day').as('hi')])
        .executeTakeFirst();
      const outcomes = await db
        .selectFrom('tap_outcomes')
        .select((eb) => [eb.fn.min('day').as('lo'), eb.fn.max('day').as('hi')])
        .executeTakeFirst();
      const instants = [
        blocks?.lo,
        blocks?.hi,
        rollups?.lo == null ? null : num(rollups.lo) * DAY_MS,
        rollups?.hi == null ? null : num(rollups.hi) * DAY_MS,
        outcomes?.lo == null ? null : num(outcomes.lo) * DAY_MS,
        outcomes?.hi == null ? null : num(outcomes.hi) * DAY_MS,
      ]
        .filter((value) => value !== null && value !== undefined)
        .map(num);
      if (instants.length === 0) return null;
      return { first: monthAt(Math.min(...instants)), last: monthAt(Math.max(...instants)) };
    },

    /** Every organization's id, in id order (the backfill's order within a month). */
    async organizations(): Promise<string[]> {
      const rows = await db.selectFrom('organizations').select('id').orderBy('id').execute();
      return rows.map((row) => row.id);
    },

    /**
     * The organization's blocks starting in [fromMs, toMs), after `after`, oldest first: a page of
     * at most `limit`, unpacked. `upTo` (inclusive) bounds the page to a chunk recorded before.
     */
    async blocks(
      orgId: string,
      fromMs: number,
      toMs: number,
      after: BlockCursor | null,
      limit: number,
      upTo: BlockCursor | null = null,
    ): Promise<SourceBlock[]> {
      let query = db
        .selectFrom('click_blocks')
        .select(['id', 'first_at', 'link_id', 'data'])
        .where('org_id', '=', orgId)
        .where('first_at', '>=', fromMs)
        .where('first_at', '<', toMs);
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('first_at', '>', after.at),
            eb.and([eb('first_at', '=', after.at), eb('id', '>', after.id)]),
          ]),
        );
      }
      if (upTo) {
        query = query.where((eb) =>
          eb.or([
            eb('first_at', '<', upTo.at),
            eb.and([eb('first_at', '=', upTo.at), eb('id', '<=', upTo.id)]),
          ]),
        );
      }
      const rows = await query.orderBy('first_at').orderBy('id').limit(limit).execute();
      return rows.map((row) => ({
        id: num(row.id),
        firstAt: num(row.first_at),
        linkId: row.link_id,
        clicks: unpackBlock(num(row.id), num(row.first_at), row.data),
      }));
    },

    /**
     * The organization's clicks whose instant is in [fromMs, toMs), from every block that can hold one
     * (a block starting up to `spanMs` earlier, as a batch held through an outage can).
     */
    async clicksIn(orgId: string, fromMs: number, toMs: number, spanMs: number): Promise<ClickInput[]> {
      const rows = await db
        .selectFrom('click_blocks')
        .select(['id', 'first_at', 'link_id', 'data'])
        .where('org_id', '=', orgId)
        .where('first_at', '>=', fromMs - spanMs)
        .where('first_at', '<', toMs)
        .where('last_at', '>=', fromMs)
        .execute();
      return rows.flatMap((row) =>
        unpackBlock(num(row.id), num(row.first_at), row.data)
          .filter((click) => click.at >= fromMs && click.at < toMs)
          .map((click) => clickInputOf(orgId, row.link_id, click)),
      );
    },

    /**
     * The longest any of the organization's blocks lasts, first click to last: how far before a day
     * `clicksIn` must look. A batch lasts seconds; one held through an outage (or seeded at once, as
     * tests do) as long as what it holds, and it can start months before some of its clicks.
     */
    async longestBlock(orgId: string): Promise<number> {
      const row = await db
        .selectFrom('click_blocks')
        .select((eb) => eb.fn.max(eb('last_at', '-', eb.ref('first_at'))).as('span'))
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return num(row?.span);
    },

    /** The organization's click rollups of days [fromDay, toDay] in `linkDimensions`/`orgDimensions`. */
    async rollups(
      orgId: string,
      fromDay: number,
      toDay: number,
      linkDimensions: readonly string[],
      orgDimensions: readonly string[],
    ): Promise<SqlRollup[]> {
      const out: SqlRollup[] = [];
      const ids = await linkIdsOf(orgId);
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await db
          .selectFrom('click_rollups')
          .select(['link_id', 'day', 'dimension', 'value', 'count'])
          .where('link_id', 'in', ids.slice(i, i + 500))
          .where('day', '>=', fromDay)
          .where('day', '<=', toDay)
          .where('org_id', '=', orgId)
          .where('dimension', 'in', [...linkDimensions])
          .execute();
        for (const { count, day, ...row } of rows)
          out.push({ kind: 'link', ...row, day: num(day), clicks: num(count) });
      }
      const orgRows = await db
        .selectFrom('org_rollups')
        .select(['day', 'dimension', 'value', 'count'])
        .where('org_id', '=', orgId)
        .where('dimension', 'in', [...orgDimensions])
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .execute();
      for (const { count, day, ...row } of orgRows)
        out.push({ kind: 'org', link_id: '', ...row, day: num(day), clicks: num(count) });
      return out;
    },

    /** The tap outcomes of days [fromDay, toDay], by tap id after `afterTap`, a page of `limit`. */
    async outcomes(fromDay: number, toDay: number, afterTap: string, limit: number): Promise<OutcomeRow[]> {
      const rows = await db
        .selectFrom('tap_outcomes')
        .selectAll()
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .where('tap_id', '>', afterTap)
        .orderBy('tap_id')
        .limit(limit)
        .execute();
      // Copied as stored, whatever the outcome's name: a verify compares what both stores answer.
      return rows.map((row) => ({
        tapId: row.tap_id,
        orgId: row.org_id,
        linkId: row.link_id,
        day: num(row.day),
        outcome: row.outcome as Outcome,
        variant: row.variant,
        platformKey: row.platform_key,
        at: num(row.at),
      }));
    },
  };
}

export type BackfillSource = ReturnType<typeof createBackfillSource>;
