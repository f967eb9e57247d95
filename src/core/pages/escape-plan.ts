// The matrix itself, not the escape/ index: that index also carries ESCAPE_MATRIX_FILE's Zod schema, which
// the engine loads only when the file is set (it idles without Zod, docs/performance.md "Memory").
import { BUILTIN_ESCAPE_MATRIX, lookupCell } from '../escape/matrix.js';
import type {
  CellKey,
  EscapeCell,
  EscapeInstructions,
  EscapeKind,
  EscapeMatrix,
  EscapeStrategy,
} from '../escape/types.js';
import type { AppTarget } from '../platforms/index.js';
import type { Visitor } from '../visitor.js';

export type { EscapeInstructions, EscapeKind } from '../escape/types.js';

export interface EscapePlan {
  /** The strategy this visit uses: the first one of its cell the destination allows, or `choose`'s pick. */
  strategy: EscapeStrategy;
  /** The visit's cell: its in-app browser, OS and destination platform (what outcomes are counted by). */
  cell: CellKey;
  /** The href of the big button, or null when no hand-off can work here (the page then offers the web link). */
  primary: { href: string; kind: EscapeKind } | null;
  /** One automatic attempt ~400 ms after load, only where the cell allows it and a script can start it. */
  autoAttempt: boolean;
  /** Manual steps to show (open the page in a real browser), for webviews that block escapes. */
  instructions: EscapeInstructions | null;
  /** How long a page still visible after an attempt waits before it continues to the website. */
  fallbackDelayMs: number;
  /** The https destination: the "Continue to website" link. */
  web: string;
}

/** Picks one of the allowed strategies for a cell (the bandit); undefined or anything else: the first. */
export type ChooseStrategy = (
  cell: CellKey,
  allowed: readonly EscapeStrategy[],
) => EscapeStrategy | undefined;

/**
 * Universal links fire on a real tap only, and a bounce to Safari is left to the visitor: a script may
 * start nothing but an intent or an app scheme (reference 3.3, 3.5).
 */
const SCRIPTABLE: ReadonlySet<EscapeStrategy> = new Set(['intent', 'scheme']);
const DEFAULT_DELAY_MS = 2500;

/**
 * `x-safari-https://<host><path><query>` (iOS 17+): Safari opens the URL, leaving the webview. The
 * fragment is dropped, as in the intent form.
 */
export function xSafariUrl(web: string): string {
  let url: URL;
  try {
    url = new URL(web);
  } catch {
    // Not reachable with a validated destination; keep the page usable rather than throw.
    return web.replace(/^https?:\/\//i, 'x-safari-https://');
  }
  const scheme = url.protocol === 'http:' ? 'x-safari-http://' : 'x-safari-https://';
  return `${scheme}${url.host}${url.pathname}${url.search}`;
}

function feasible(strategy: EscapeStrategy, row: EscapeCell, target: AppTarget): boolean {
  if (strategy === 'intent') return target.android !== null;
  if (strategy === 'scheme') return target.ios !== null;
  if (strategy === 'instructions') return Boolean(row.hint);
  return true;
}

/**
 * The cell's strategies this destination allows, in the cell's order (an intent needs an Android app, a
 * scheme an iOS scheme URL); `['none']` when none is. `cell` is a row, or a cell key looked up in `matrix`.
 */
export function allowedStrategies(
  cell: EscapeCell | CellKey,
  target: AppTarget,
  matrix: EscapeMatrix = BUILTIN_ESCAPE_MATRIX,
): EscapeStrategy[] {
  const row =
    'strategies' in cell
      ? cell
      : cell.os === 'ios' || cell.os === 'android'
        ? lookupCell(cell.inApp, cell.os, cell.platform, matrix)
        : null;
  const allowed = row ? row.strategies.filter((strategy) => feasible(strategy, row, target)) : [];
  return allowed.length > 0 ? allowed : ['none'];
}

// A target's x-safari href, parsed once per compiled destination rather than on every iOS visit.
const xSafariHrefs = new WeakMap<AppTarget, string>();

function xSafariHrefOf(target: AppTarget): string {
  let href = xSafariHrefs.get(target);
  if (href === undefined) {
    href = xSafariUrl(target.bounce ?? target.web);
    xSafariHrefs.set(target, href);
  }
  return href;
}

function primaryFor(strategy: EscapeStrategy, target: AppTarget): EscapePlan['primary'] {
  if (strategy === 'intent' && target.android !== null) return { href: target.android, kind: 'intent' };
  if (strategy === 'scheme' && target.ios !== null) return { href: target.ios, kind: 'scheme' };
  if (strategy === 'universal') return { href: target.iosUniversal, kind: 'universal' };
  if (strategy === 'x-safari') return { href: xSafariHrefOf(target), kind: 'x-safari' };
  return null;
}

/**
 * The escape plan for this destination and visitor, read from the matrix (reference 3.6): nothing about a
 * cell is decided here. Pure and cheap: a few map lookups.
 */
export function planEscape(
  target: AppTarget,
  visitor: Visitor,
  matrix: EscapeMatrix = BUILTIN_ESCAPE_MATRIX,
  choose?: ChooseStrategy,
): EscapePlan {
  const { os, inApp } = visitor;
  const cell: CellKey = { inApp, os, platform: target.platformKey };
  if (os !== 'ios' && os !== 'android') {
    // Desktops are redirected before a page is rendered; should one get here, the web link is all it needs.
    const none = { strategy: 'none' as const, primary: null, autoAttempt: false, instructions: null };
    return { ...none, cell, fallbackDelayMs: DEFAULT_DELAY_MS, web: target.web };
  }
  const row = lookupCell(inApp, os, target.platformKey, matrix);
  const allowed = allowedStrategies(row, target);
  const picked = choose?.(cell, allowed);
  const strategy = picked !== undefined && allowed.includes(picked) ? picked : (allowed[0] ?? 'none');
  const primary = primaryFor(strategy, target);
  return {
    strategy,
    cell,
    primary,
    autoAttempt: primary !== null && row.attempt === 'script' && SCRIPTABLE.has(strategy),
    instructions: row.hint ?? null,
    fallbackDelayMs: row.fallbackDelayMs,
    web: target.web,
  };
}
