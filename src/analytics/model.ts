import type { VisitSource } from '../core/visit-source.js';
import type { AnalyticsTables } from '../store/migrations/008-analytics.js';
import type { ClickBatchTables } from '../store/migrations/013-click-batches.js';
import type { Database } from '../store/schema.js';

/**
 * What the write side (write/) and the read side (read/) both speak: the analytics tables' types, the
 * stored click, days and 7-day blocks, scopes and windows, outcomes, and the names of folder and tag
 * groups. No I/O.
 */

export type AnalyticsDatabase = Database & AnalyticsTables & ClickBatchTables;

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

/** A scope without a filter: the whole organization. */
export const isWhole = (scope: Scope) => !scope.linkId && !scope.folderId && !scope.tag;

/** Epoch days (UTC), both ends included. */
export interface DayRange {
  from: number;
  to: number;
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
  source: ClickSource;
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
  /** The tap's in-app browser, OS and escape strategy, for the per-cell rollups (absent on older rows). */
  sourceApp?: string | null;
  device?: string | null;
  strategy?: string | null;
  at: number;
  /**
   * The webhook event the outcome emits, queued in the outbox in the outcome's own transaction (it travels
   * with a row held through a database outage, so the event is neither lost nor sent twice).
   */
  event?: { name: string; data: unknown };
}

/** Where a visit came from: the short URL itself, or the link's QR code (core/visit-source.ts). */
export type ClickSource = VisitSource;

export const num = (value: unknown): number => Number(value ?? 0);

/** A click as stored: `ClickInput` checked and trimmed to the stored sizes (write/rollups.ts `toRow`). */
export interface ClickRow {
  org_id: string;
  link_id: string;
  /** Epoch milliseconds. */
  at: number;
  bot: 0 | 1;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: string;
  source_app: string | null;
  referrer_host: string | null;
  platform_key: string | null;
  tap_id: string | null;
  /** The escape strategy of the page served (escape-cells.ts); rolled up, never stored raw. */
  strategy?: string | null;
  /** 1 for a visit to an expired link (issue #20), kept in the raw block: its outcome is `expired`. */
  expired?: 0 | 1;
  /** 1 for a visit through the link's QR code (source `qr`); 0 or absent for any other (`link`). */
  qr?: 0 | 1;
}

/** Suffix of the organization's 7-day rows: day holds the block's first epoch day (a multiple of 7). */
export const WEEK = '/w';
export const weekOf = (day: number): number => day - (day % 7);

/** A folder's and a tag's key in `group_rollups` (migration 016). */
export const folderGroup = (folderId: string) => `f:${folderId}`;
export const tagGroup = (tag: string) => `t:${tag}`;
export const groupsOf = (folderId: string | null, tags: readonly string[]): string[] => [
  ...(folderId ? [folderGroup(folderId)] : []),
  ...tags.map(tagGroup),
];

/**
 * The most-clicked links named by slug, as both stores answer them: most clicks first, ties by slug, a
 * link with no slug (gone from the main database) left out, at most `limit`. Slugs are asked only for the
 * links that can make the list: the top `limit` and whoever ties the last of them.
 */
export async function topBySlug(
  totals: readonly { id: string; clicks: number }[],
  limit: number,
  slugsOf: (ids: string[]) => Promise<ReadonlyMap<string, string>>,
): Promise<{ slug: string; clicks: number }[]> {
  const ranked = [...totals].sort((a, b) => b.clicks - a.clicks);
  const floor = ranked[limit - 1]?.clicks ?? 0;
  const candidates = ranked.filter((row, i) => i < limit || row.clicks === floor);
  const slugs = await slugsOf(candidates.map((row) => row.id));
  return candidates
    .flatMap((row) => {
      const slug = slugs.get(row.id);
      return slug === undefined ? [] : [{ slug, clicks: row.clicks }];
    })
    .sort((a, b) => b.clicks - a.clicks || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
    .slice(0, limit);
}
