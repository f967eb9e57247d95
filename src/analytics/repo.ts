import type { Kysely, Transaction } from 'kysely';
import type { Store } from '../store/database.js';
import type { AnalyticsTables } from '../store/migrations/008-analytics.js';
import type { Database } from '../store/schema.js';
import type { ClickInput } from './click-buffer.js';

/**
 * Analytics store queries. Writes keep `click_rollups` in step with the raw rows in the same transaction;
 * reads answer from the rollups (link_id '' = the whole organization) and only the clicks list and the
 * export read raw rows.
 */

export type AnalyticsDatabase = Database & AnalyticsTables;
type Tx = Transaction<AnalyticsDatabase>;

export const DAY_MS = 86_400_000;
export const OUTCOMES = ['opened', 'browser', 'broken'] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** Separates the two parts of a compound rollup value (`platform|outcome`, `variant|outcome`). */
export const SEP = '|';

/** The organization's links a read covers; no filter means the whole organization. */
export interface Scope {
  orgId: string;
  linkId?: string | undefined;
  folderId?: string | undefined;
  tag?: string | undefined;
}

export interface OutcomeRow {
  tapId: string;
  orgId: string;
  linkId: string;
  day: number;
  outcome: Outcome;
  variant: number | null;
  platformKey: string | null;
  at: number;
}

interface Increment {
  org_id: string;
  link_id: string;
  day: number;
  dimension: string;
  value: string;
  count: number;
}

const cut = (value: string | null | undefined, max: number): string | null =>
  value ? value.slice(0, max) : null;
const num = (value: unknown): number => Number(value ?? 0);

/** Increments keyed by their rollup row, so each row is upserted once per batch (PostgreSQL requires it). */
class Increments {
  readonly rows = new Map<string, Increment>();
  add(orgId: string, linkId: string, day: number, dimension: string, value: string): void {
    const key = `${orgId}\n${linkId}\n${day}\n${dimension}\n${value}`;
    const row = this.rows.get(key);
    if (row) row.count += 1;
    else this.rows.set(key, { org_id: orgId, link_id: linkId, day, dimension, value, count: 1 });
  }
}

type ClickRow = AnalyticsDatabase['clicks'] & { at: number };

function toRow(click: ClickInput, id: string): ClickRow {
  const at = Number.isFinite(click.at) ? Math.trunc(click.at) : Date.now();
  const country = click.country && /^[A-Za-z]{2}$/.test(click.country) ? click.country.toUpperCase() : null;
  return {
    id,
    org_id: click.orgId.slice(0, 36),
    link_id: click.linkId.slice(0, 36),
    at,
    bot: click.bot ? 1 : 0,
    variant: Number.isInteger(click.variant) ? click.variant : null,
    routed: cut(click.routed, 8192),
    country,
    city: cut(click.city, 64),
    device: click.device.slice(0, 16) || 'other',
    source_app: cut(click.sourceApp, 32),
    referrer_host: cut(click.referrerHost?.toLowerCase(), 253),
    platform_key: cut(click.platformKey, 32),
    tap_id: cut(click.tapId, 36),
  };
}

/** The rollup rows one click adds to: its link's and the organization's (link_id ''). */
function addClick(inc: Increments, row: ClickRow): void {
  const day = Math.floor(row.at / DAY_MS);
  const { org_id: org, link_id: link } = row;
  if (row.bot) {
    inc.add(org, link, day, 'bot', '');
    inc.add(org, '', day, 'bot', '');
    return;
  }
  const hour = String(Math.floor(row.at / 3_600_000) % 24);
  for (const scope of [link, '']) {
    inc.add(org, scope, day, 'total', '');
    inc.add(org, scope, day, 'country', row.country ?? '');
    inc.add(org, scope, day, 'device', row.device);
    inc.add(org, scope, day, 'platform', row.platform_key ?? '');
    inc.add(org, scope, day, 'referrer', row.referrer_host ?? '');
    inc.add(org, scope, day, 'app', row.source_app ?? '');
    inc.add(org, scope, day, 'hour', hour);
  }
  if (row.variant !== null) inc.add(org, link, day, 'variant', String(row.variant));
  inc.add(org, '', day, 'link', link);
}

function addOutcome(inc: Increments, o: OutcomeRow): void {
  for (const scope of [o.linkId, '']) {
    inc.add(o.orgId, scope, o.day, 'outcome', o.outcome);
    inc.add(o.orgId, scope, o.day, 'platform_outcome', `${o.platformKey ?? ''}${SEP}${o.outcome}`);
  }
  if (o.variant !== null) inc.add(o.orgId, o.linkId, o.day, 'variant_outcome', `${o.variant}${SEP}${o.outcome}`);
}

async function upsert(trx: Tx, inc: Increments): Promise<void> {
  const rows = [...inc.rows.values()];
  for (let i = 0; i < rows.length; i += 2000) {
    await trx
      .insertInto('click_rollups')
      .values(rows.slice(i, i + 2000))
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'link_id', 'dimension', 'day', 'value'])
          .doUpdateSet((eb) => ({ count: eb('click_rollups.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

export function createAnalyticsRepo(store: Store) {
  const db = store.db as unknown as Kysely<AnalyticsDatabase>;

  /** Rollup rows of a scope: the organization's own rows, one link's, or the filtered links'. */
  function rollups(scope: Scope) {
    const base = db.selectFrom('click_rollups').where('click_rollups.org_id', '=', scope.orgId);
    if (!scope.linkId && !scope.folderId && !scope.tag) return base.where('click_rollups.link_id', '=', '');
    if (scope.linkId && !scope.folderId && !scope.tag) return base.where('click_rollups.link_id', '=', scope.linkId);
    return base.where('click_rollups.link_id', 'in', linkIds(scope));
  }

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

  const isWhole = (scope: Scope) => !scope.linkId && !scope.folderId && !scope.tag;

  return {
    /** One transaction: the raw rows and every rollup increment of the batch. */
    async writeClicks(clicks: readonly ClickInput[], uuid: () => string): Promise<void> {
      const rows = clicks.map((click) => toRow(click, uuid()));
      const inc = new Increments();
      for (const row of rows) addClick(inc, row);
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < rows.length; i += 1000) {
          await trx
            .insertInto('clicks')
            .values(rows.slice(i, i + 1000))
            .execute();
        }
        await upsert(trx, inc);
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
        await upsert(trx, inc);
        return true;
      });
    },

    /** Sums per (dimension, value) over the scope and days >= fromDay. */
    async sums(scope: Scope, dimensions: string[], fromDay: number) {
      const rows = await rollups(scope)
        .select(['click_rollups.dimension', 'click_rollups.value'])
        .select((eb) => eb.fn.sum<string | number>('click_rollups.count').as('clicks'))
        .where('click_rollups.dimension', 'in', dimensions)
        .where('click_rollups.day', '>=', fromDay)
        .groupBy(['click_rollups.dimension', 'click_rollups.value'])
        .execute();
      return rows.map((row) => ({ dimension: row.dimension, value: row.value, clicks: num(row.clicks) }));
    },

    /** Human clicks per epoch day. */
    async daily(scope: Scope, fromDay: number): Promise<Map<number, number>> {
      const rows = await rollups(scope)
        .select('click_rollups.day')
        .select((eb) => eb.fn.sum<string | number>('click_rollups.count').as('clicks'))
        .where('click_rollups.dimension', '=', 'total')
        .where('click_rollups.day', '>=', fromDay)
        .groupBy('click_rollups.day')
        .execute();
      return new Map(rows.map((row) => [num(row.day), num(row.clicks)]));
    },

    /** The scope's links by clicks, most first (slug breaks ties). */
    async perLink(scope: Scope, fromDay: number, limit: number) {
      const whole = isWhole(scope);
      const totals = rollups(scope)
        .select((eb) => [
          (whole ? eb.ref('click_rollups.value') : eb.ref('click_rollups.link_id')).as('id'),
          eb.fn.sum<string | number>('click_rollups.count').as('clicks'),
        ])
        .where('click_rollups.dimension', '=', whole ? 'link' : 'total')
        .where('click_rollups.day', '>=', fromDay)
        .groupBy(whole ? 'click_rollups.value' : 'click_rollups.link_id');
      const rows = await db
        .selectFrom(totals.as('t'))
        .innerJoin('links', 'links.id', 't.id')
        .select(['links.slug', 't.clicks'])
        .where('links.org_id', '=', scope.orgId)
        .orderBy('t.clicks', 'desc')
        .orderBy('links.slug', 'asc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ slug: row.slug, clicks: num(row.clicks) }));
    },

    /** Sums per (link, dimension, value) for the given links of one organization. */
    async linkSums(orgId: string, ids: readonly string[], dimensions: string[], fromDay: number) {
      const out: { linkId: string; dimension: string; value: string; clicks: number }[] = [];
      for (let i = 0; i < ids.length; i += 500) {
        const rows = await db
          .selectFrom('click_rollups')
          .select(['link_id', 'dimension', 'value'])
          .select((eb) => eb.fn.sum<string | number>('count').as('clicks'))
          .where('org_id', '=', orgId)
          .where('link_id', 'in', ids.slice(i, i + 500))
          .where('dimension', 'in', dimensions)
          .where('day', '>=', fromDay)
          .groupBy(['link_id', 'dimension', 'value'])
          .execute();
        for (const row of rows)
          out.push({ linkId: row.link_id, dimension: row.dimension, value: row.value, clicks: num(row.clicks) });
      }
      return out;
    },

    /** One link's human clicks, newest first, each with its tap's outcome when one was reported. */
    async clicks(orgId: string, linkId: string, fromMs: number, limit: number, offset: number) {
      const rows = await db
        .selectFrom('clicks')
        .leftJoin('tap_outcomes', 'tap_outcomes.tap_id', 'clicks.tap_id')
        .select(['clicks.id', 'clicks.at', 'clicks.source_app', 'clicks.country', 'clicks.city'])
        .select(['clicks.device', 'clicks.tap_id', 'tap_outcomes.outcome'])
        .where('clicks.link_id', '=', linkId)
        .where('clicks.org_id', '=', orgId)
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
    async *exportPages(scope: Scope, fromMs: number, pageSize = 5000) {
      let after: { at: number; id: string } | null = null;
      for (;;) {
        let q = db
          .selectFrom('clicks')
          .innerJoin('links', 'links.id', 'clicks.link_id')
          .leftJoin('tap_outcomes', 'tap_outcomes.tap_id', 'clicks.tap_id')
          .select(['clicks.id', 'clicks.at', 'clicks.link_id', 'links.slug', 'clicks.variant', 'clicks.routed'])
          .select(['clicks.country', 'clicks.city', 'clicks.device', 'clicks.source_app'])
          .select(['clicks.referrer_host', 'clicks.platform_key', 'tap_outcomes.outcome'])
          .where('clicks.org_id', '=', scope.orgId)
          .where('clicks.bot', '=', 0)
          .where('clicks.at', '>=', fromMs);
        if (!isWhole(scope)) q = q.where('clicks.link_id', 'in', linkIds(scope));
        const cursor = after;
        if (cursor) {
          q = q.where((eb) =>
            eb.or([
              eb('clicks.at', '>', cursor.at),
              eb.and([eb('clicks.at', '=', cursor.at), eb('clicks.id', '>', cursor.id)]),
            ]),
          );
        }
        const rows = await q.orderBy('clicks.at', 'asc').orderBy('clicks.id', 'asc').limit(pageSize).execute();
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
