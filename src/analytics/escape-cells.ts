import { type ArmStats, type CellOutcomes, cellKeyOf, isEscapeStrategy } from '../core/escape/bandit.js';
import type { EscapeStrategy } from '../core/escape/index.js';

/**
 * Taps and outcomes per escape cell (issue #18): in-app browser × OS × platform × the strategy the page
 * used. Rolled up next to the per-platform rows (rollups.ts calls in here), per link, per organization
 * day and 7-day block, under two dimensions:
 *
 * - `cell`: taps (clicks that were served an escape page), value `inApp|os|platform|strategy`;
 * - `cell_outcome`: reported outcomes, value `inApp|os|platform|strategy|outcome`.
 *
 * `inApp` is '' for a browser. Outcomes are also counted under the organization `*`, which no real
 * organization can be (their ids are UUIDs): the bandit's read of every organization's outcomes is then
 * one key range, not a scan of every organization's rows.
 */

export const CELL = 'cell';
export const CELL_OUTCOME = 'cell_outcome';
/** The organization id that holds the sum over all organizations (outcomes only). */
export const ALL_ORGS = '*';

const SEP = '|';
const OS = new Set(['ios', 'android']);
const OUTCOME = new Set(['opened', 'browser', 'broken']);

/** The facts of a tap its cell is made of, as a click row or an outcome carries them. */
export interface CellFacts {
  inApp: string | null | undefined;
  os: string | null | undefined;
  platform: string | null | undefined;
  strategy: string | null | undefined;
}

const clean = (value: string, max: number) => value.length <= max && !value.includes(SEP);

/**
 * `inApp|os|platform|strategy`, or null when the tap is no cell's: no strategy (no escape page, or a
 * token older than the cells), not a phone, or a value that would not fit or would break the encoding.
 */
export function cellValueOf(facts: CellFacts): string | null {
  const inApp = facts.inApp ?? '';
  const { os, platform, strategy } = facts;
  if (!strategy || !isEscapeStrategy(strategy) || !os || !OS.has(os) || !platform) return null;
  if (!clean(inApp, 32) || !clean(platform, 32)) return null;
  return `${inApp}${SEP}${os}${SEP}${platform}${SEP}${strategy}`;
}

export interface CellRow {
  inApp: string | null;
  os: 'ios' | 'android';
  platform: string;
  strategy: EscapeStrategy;
  taps: number;
  opened: number;
  browser: number;
  broken: number;
  /** opened / taps, four decimals; null (never 0) when the cell has no taps in the window. */
  openRate: number | null;
}

function parseCell(
  parts: string[],
): Omit<CellRow, 'taps' | 'opened' | 'browser' | 'broken' | 'openRate'> | null {
  const [inApp, os, platform, strategy] = parts;
  if (inApp === undefined || !platform || (os !== 'ios' && os !== 'android') || !isEscapeStrategy(strategy))
    return null;
  return { inApp: inApp === '' ? null : inApp, os, platform, strategy };
}

/** Rounded like the other analytics rates; capped at 1 (an outcome can outlive a click lost in a crash). */
const openRate = (opened: number, taps: number) =>
  taps > 0 ? Math.min(1, Math.round((opened / taps) * 10_000) / 10_000) : null;

/** The per-cell table from the `cell` and `cell_outcome` sums of a scope, most taps first. */
export function cellRows(sums: readonly { dimension: string; value: string; clicks: number }[]): CellRow[] {
  const rows = new Map<string, CellRow>();
  const rowOf = (value: string) => {
    const existing = rows.get(value);
    if (existing) return existing;
    const cell = parseCell(value.split(SEP));
    if (!cell) return null;
    const row: CellRow = { ...cell, taps: 0, opened: 0, browser: 0, broken: 0, openRate: null };
    rows.set(value, row);
    return row;
  };
  for (const sum of sums) {
    if (sum.dimension === CELL) {
      const row = rowOf(sum.value);
      if (row) row.taps += sum.clicks;
    } else if (sum.dimension === CELL_OUTCOME) {
      const at = sum.value.lastIndexOf(SEP);
      const outcome = sum.value.slice(at + 1);
      const row = OUTCOME.has(outcome) ? rowOf(sum.value.slice(0, at)) : null;
      if (row) row[outcome as 'opened' | 'browser' | 'broken'] += sum.clicks;
    }
  }
  const list = [...rows.values()];
  for (const row of list) row.openRate = openRate(row.opened, row.taps);
  const name = (row: CellRow) =>
    `${row.inApp ?? ''}${SEP}${row.os}${SEP}${row.platform}${SEP}${row.strategy}`;
  return list.sort((a, b) => b.taps - a.taps || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

/** Outcomes per cell key and strategy, for the bandit, from `cell_outcome` sums. */
export function cellOutcomes(
  sums: readonly { dimension: string; value: string; clicks: number }[],
): CellOutcomes {
  const byCell = new Map<string, Map<EscapeStrategy, ArmStats>>();
  for (const sum of sums) {
    if (sum.dimension !== CELL_OUTCOME) continue;
    const parts = sum.value.split(SEP);
    const cell = parseCell(parts);
    const outcome = parts[4];
    if (!cell || parts.length !== 5 || !outcome || !OUTCOME.has(outcome)) continue;
    const key = cellKeyOf(cell.inApp, cell.os, cell.platform);
    let arms = byCell.get(key);
    if (!arms) {
      arms = new Map();
      byCell.set(key, arms);
    }
    const arm = arms.get(cell.strategy) ?? { opened: 0, outcomes: 0 };
    arm.outcomes += sum.clicks;
    if (outcome === 'opened') arm.opened += sum.clicks;
    arms.set(cell.strategy, arm);
  }
  return byCell;
}
