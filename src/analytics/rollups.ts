import { randomUUID } from 'node:crypto';
import type { AnalyticsTables } from '../store/migrations/008-analytics.js';
import type { Database } from '../store/schema.js';
import type { ClickInput } from './click-buffer.js';

/**
 * The write side of the rollups: which (link, day, dimension, value) rows a click or an outcome adds to.
 * The batch writer and the bench share it, so seeded data and live data are rolled up the same way.
 */

export type AnalyticsDatabase = Database & AnalyticsTables;

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

/** A raw human click as the export writes it. */
export interface ExportRow {
  id: string;
  at: number;
  link_id: string;
  slug: string;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: string;
  source_app: string | null;
  referrer_host: string | null;
  platform_key: string | null;
  tap_id: string | null;
  outcome: string | null;
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

export interface Increment {
  org_id: string;
  link_id: string;
  day: number;
  dimension: string;
  value: string;
  count: number;
}

export const cut = (value: string | null | undefined, max: number): string | null =>
  value ? value.slice(0, max) : null;
export const num = (value: unknown): number => Number(value ?? 0);

function child<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * Increments, one per rollup row, so each row is upserted once per batch (PostgreSQL requires it). Nested
 * maps rather than one composite string key: the ids repeat as the same string objects, whose hashes V8
 * caches, so a click costs a few lookups instead of building and hashing long keys.
 */
export class Increments {
  readonly rows: Increment[] = [];
  private readonly root = new Map<string, Map<string, Map<number, Map<string, Map<string, Increment>>>>>();

  add(orgId: string, linkId: string, day: number, dimension: string, value: string): void {
    const byLink = child(this.root, orgId, () => new Map());
    const byDay = child(byLink, linkId, () => new Map());
    const byDimension = child(byDay, day, () => new Map());
    const byValue = child(byDimension, dimension, () => new Map());
    const row = byValue.get(value);
    if (row) row.count += 1;
    else {
      const fresh = { org_id: orgId, link_id: linkId, day, dimension, value, count: 1 };
      byValue.set(value, fresh);
      this.rows.push(fresh);
    }
  }
}

export type ClickRow = Omit<AnalyticsDatabase['clicks'], 'at'> & { at: number };

/**
 * UUIDv7-shaped ids: time first, so raw rows are appended at the end of the primary-key index; within one
 * millisecond a counter takes the 12 bits after the version (RFC 9562's method 1), so clicks that share a
 * millisecond still sort in the order they were recorded ("newest first" lists stay exact). The other 62
 * bits stay random, so ids never collide across instances.
 */
export function createTimeOrderedIds(): (at: number) => string {
  let lastMs = -1;
  let counter = 0;
  return (at) => {
    const ms = Math.max(0, Math.trunc(at));
    counter = ms === lastMs ? (counter + 1) & 0xfff : 0;
    lastMs = ms;
    const time = ms.toString(16).padStart(12, '0').slice(-12);
    const sequence = counter.toString(16).padStart(3, '0');
    return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${sequence}${randomUUID().slice(18)}`;
  };
}

/** One id without a sequence (each call starts a new one): for tools that write a single row. */
export function timeOrderedId(at: number): string {
  return createTimeOrderedIds()(at);
}

export function toRow(click: ClickInput, id: string): ClickRow {
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

const HOURS = Array.from({ length: 24 }, (_, hour) => String(hour));
/** Suffix of the organization's 7-day rows: day holds the block's first epoch day (a multiple of 7). */
export const WEEK = '/w';
const WEEKLY = new Map(
  [
    'total',
    'bot',
    'country',
    'device',
    'platform',
    'referrer',
    'hour',
    'link',
    'outcome',
    'platform_outcome',
  ].map((dimension) => [dimension, `${dimension}${WEEK}`]),
);
export const weekOf = (day: number): number => day - (day % 7);

/** One count for the link, the organization's day and the organization's 7-day block. */
function addAll(
  inc: Increments,
  org: string,
  link: string | null,
  day: number,
  dimension: string,
  value: string,
) {
  if (link !== null) inc.add(org, link, day, dimension, value);
  inc.add(org, '', day, dimension, value);
  inc.add(org, '', weekOf(day), WEEKLY.get(dimension) ?? dimension, value);
}

/**
 * The rollup rows one click adds to: its link's, the organization's day (link_id '') and the
 * organization's 7-day block, so a 90-day organization read sums ~25 rows per value instead of 90. Only
 * dimensions some read shows are rolled up (the in-app source lives in raw rows only); `link` exists at
 * organization level so the per-link list of a whole organization never touches per-link rows.
 */
export function addClick(inc: Increments, row: ClickRow): void {
  const day = Math.floor(row.at / DAY_MS);
  const { org_id: org, link_id: link } = row;
  if (row.bot) {
    addAll(inc, org, link, day, 'bot', '');
    return;
  }
  addAll(inc, org, link, day, 'total', '');
  addAll(inc, org, link, day, 'country', row.country ?? '');
  addAll(inc, org, link, day, 'device', row.device);
  addAll(inc, org, link, day, 'platform', row.platform_key ?? '');
  addAll(inc, org, link, day, 'referrer', row.referrer_host ?? '');
  addAll(inc, org, link, day, 'hour', HOURS[Math.floor(row.at / 3_600_000) % 24] ?? '0');
  addAll(inc, org, null, day, 'link', link);
  if (row.variant !== null) inc.add(org, link, day, 'variant', String(row.variant));
}

export function addOutcome(inc: Increments, o: OutcomeRow): void {
  addAll(inc, o.orgId, o.linkId, o.day, 'outcome', o.outcome);
  addAll(inc, o.orgId, o.linkId, o.day, 'platform_outcome', `${o.platformKey ?? ''}${SEP}${o.outcome}`);
  if (o.variant !== null)
    inc.add(o.orgId, o.linkId, o.day, 'variant_outcome', `${o.variant}${SEP}${o.outcome}`);
}
