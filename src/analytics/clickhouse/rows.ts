import { cellValueOf } from '../escape-cells.js';
import { DAY_MS, type OutcomeRow } from '../model.js';
import type { ClickInput } from '../write/click-input.js';
import { toRow } from '../write/rollups.js';

/**
 * Clicks and outcomes as ClickHouse rows. A click is checked and trimmed exactly as the SQL store does it
 * (`toRow`), its UTC day and month computed here (no server timezone enters a day), its escape cell
 * encoded by the same `cellValueOf`, and absent values written as ''. Rows travel as JSONEachRow, never
 * through SQL text.
 */

export interface ClickhouseClickRow {
  org_id: string;
  link_id: string;
  day: string;
  at: number;
  batch_id: string;
  seq: number;
  bot: 0 | 1;
  variant: number | null;
  routed: string;
  country: string;
  city: string;
  device: string;
  source_app: string;
  referrer_host: string;
  platform_key: string;
  tap_id: string;
  cell: string;
  expired: 0 | 1;
  qr: 0 | 1;
  /** The link's groups on the click's day (group-history.ts), set by the writer. */
  groups: string[];
}

/** The last day every release maps to its month: 18.16's date tables end in 2105 (Date itself in 2149). */
const LAST_DAY = Date.UTC(2106, 0, 1) / DAY_MS;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** `YYYYMM` of an epoch day, as ClickHouse's `toYYYYMM(day)` names the partition. */
export const monthOf = (day: number): number => {
  const date = new Date(day * DAY_MS);
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
};

/**
 * A batch's click `seq` of `batchId`: its index in the batch, so a retry writes the same rows. `groups`
 * is the writer's to fill (the stamp of its link and day).
 */
export function clickRow(click: ClickInput, batchId: string, seq: number): ClickhouseClickRow {
  const row = toRow(click);
  // A value ClickHouse would refuse fails the whole INSERT, and the batch would be retried for ever: an
  // instant outside the Date range is clamped (the same way on every retry), a variant outside Int32 is
  // dropped. Only a corrupt spill file could hold either.
  row.at = Math.min(Math.max(row.at, 0), LAST_DAY * DAY_MS - 1);
  if (row.variant !== null && (row.variant < INT32_MIN || row.variant > INT32_MAX)) row.variant = null;
  const cell = cellValueOf({
    inApp: row.source_app,
    os: row.device,
    platform: row.platform_key,
    strategy: row.strategy,
  });
  return {
    org_id: row.org_id,
    link_id: row.link_id,
    day: isoDay(Math.floor(row.at / DAY_MS)),
    at: row.at,
    batch_id: batchId,
    seq,
    bot: row.bot,
    variant: row.variant,
    routed: row.routed ?? '',
    country: row.country ?? '',
    city: row.city ?? '',
    device: row.device,
    source_app: row.source_app ?? '',
    referrer_host: row.referrer_host ?? '',
    platform_key: row.platform_key ?? '',
    tap_id: row.tap_id ?? '',
    cell: cell ?? '',
    expired: row.expired === 1 ? 1 : 0,
    qr: row.qr === 1 ? 1 : 0,
    groups: [],
  };
}

/** Larger for an earlier outcome: the ReplacingMergeTree keeps the tap's first one when it merges. */
export const precedenceOf = (at: number): number => Number.MAX_SAFE_INTEGER - Math.max(0, Math.trunc(at));

/** An outcome's row; `groups` is its link's stamp on the tap's day (the writer's, group-history.ts). */
export function outcomeRow(o: OutcomeRow, groups: readonly string[] = []) {
  const cell = cellValueOf({
    inApp: o.sourceApp,
    os: o.device,
    platform: o.platformKey,
    strategy: o.strategy,
  });
  return {
    org_id: o.orgId,
    link_id: o.linkId,
    day: isoDay(o.day),
    tap_id: o.tapId,
    outcome: o.outcome,
    variant: o.variant,
    // Uncut, as the SQL store writes it into the `platform_outcome` value.
    platform_key: o.platformKey ?? '',
    cell: cell ?? '',
    at: Math.trunc(o.at),
    precedence: precedenceOf(o.at),
    groups: [...groups],
  };
}
