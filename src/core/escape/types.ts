import type { InAppKey, Os } from '../visitor.js';

/**
 * The ways an escape page can hand a visitor over (reference 3.6):
 * - intent: Android `intent://` URL with the app's package and a browser fallback;
 * - scheme: the app's custom URL scheme, for iOS webviews that forward schemes to the OS;
 * - universal: the https destination itself, tapped in Safari (universal link);
 * - x-safari: `x-safari-https://` bounce of the link itself to Safari, for iOS webviews that forward
 *   no app scheme (Safari then runs the universal-link step);
 * - instructions: no button, only the cell's hint (how to leave the webview by hand);
 * - none: only the "Continue to website" link.
 */
export const ESCAPE_STRATEGIES = [
  'intent',
  'scheme',
  'universal',
  'x-safari',
  'instructions',
  'none',
] as const;
export type EscapeStrategy = (typeof ESCAPE_STRATEGIES)[number];

/** The hand-off strategies that put a button on the page. */
export type EscapeKind = Extract<EscapeStrategy, 'intent' | 'scheme' | 'universal' | 'x-safari'>;

/** Manual steps a cell can show beside (or instead of) the button; the texts live in the page. */
export const ESCAPE_HINTS = ['browser-menu', 'safari-menu', 'browser-menu-if-stuck'] as const;
export type EscapeInstructions = (typeof ESCAPE_HINTS)[number];

export type CellOs = 'ios' | 'android';

/** One cell of the matrix: an in-app browser (null: the real browser) on one OS, for a platform or `*`. */
export interface EscapeCell {
  inApp: InAppKey | null;
  os: CellOs;
  /** A platform key, or '*' for every platform. */
  platform: string;
  /** Ordered: the planner takes the first one the destination allows. */
  strategies: readonly EscapeStrategy[];
  /** 'script': one automatic attempt is allowed; 'tap': the hand-off waits for the visitor's tap. */
  attempt: 'script' | 'tap';
  /** How long after an attempt a still-visible page gives up and continues to the website. */
  fallbackDelayMs: number;
  hint?: EscapeInstructions | null;
  /** A public page, an issue thread or a test path that supports the row. */
  source: string;
  /** The date (YYYY-MM-DD) the source last confirmed the row. */
  confirmed: string;
  note?: string;
}

/** Which cell a visit fell in: the visitor's in-app browser and OS, and the destination's platform. */
export interface CellKey {
  inApp: InAppKey | null;
  os: Os;
  platform: string;
}

/** A validated matrix, indexed for lookups. */
export interface EscapeMatrix {
  readonly rows: readonly EscapeCell[];
  readonly byKey: ReadonlyMap<string, EscapeCell>;
}

/** The index key of a row: `instagram|ios|*`, `browser|android|youtube`. */
export function cellIndexKey(inApp: InAppKey | null, os: string, platform: string): string {
  return `${inApp ?? 'browser'}|${os}|${platform}`;
}
