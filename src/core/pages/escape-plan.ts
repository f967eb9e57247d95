import type { ChooseStrategy } from '../escape/bandit.js';
import type { AppTarget } from '../platforms/index.js';
import type { InAppKey, Visitor } from '../visitor.js';

/**
 * - intent: Android `intent://` URL with the app's package and a browser fallback.
 * - scheme: the app's custom URL scheme, for iOS webviews that forward schemes to the OS.
 * - universal: the https destination itself, tapped in Safari (universal link).
 * - x-safari: `x-safari-https://` bounce to Safari, for iOS webviews that do not forward app schemes.
 * - browser-escape: a hop to the default browser without an app (reserved; no row of the table uses it).
 */
export type EscapeKind = 'intent' | 'scheme' | 'universal' | 'x-safari' | 'browser-escape';
export type EscapeInstructions = 'wechat' | 'snapchat' | 'tiktok';

export interface EscapePlan {
  /** The href of the big button, or null when no hand-off can work here (the page then offers the web link). */
  primary: { href: string; kind: EscapeKind } | null;
  /** One automatic attempt ~400 ms after load, only where a script-started navigation can work. */
  autoAttempt: boolean;
  /** Manual steps to show (open the page in a real browser), for webviews that block every escape. */
  instructions: EscapeInstructions | null;
  /** The https destination: the "Continue to website" link. */
  web: string;
}

/*
 * iOS in-app browsers that hand non-http schemes to the OS (reference 3.1: "other-browser / custom
 * scheme works"). Threads and X open links in SFSafariViewController, which behaves like Safari, so they
 * are not here: they take the universal-link path with the browsers.
 */
const IOS_FORWARDS_SCHEMES: ReadonlySet<InAppKey> = new Set([
  'instagram',
  'facebook',
  'linkedin',
  'line',
  'telegram',
  'gsa',
]);

// iOS contexts that behave like Safari: a tap on the https destination fires the universal link.
const IOS_LIKE_SAFARI: ReadonlySet<InAppKey | null> = new Set([null, 'threads']);

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

function plan(
  primary: EscapePlan['primary'],
  autoAttempt: boolean,
  instructions: EscapeInstructions | null,
  web: string,
): EscapePlan {
  return { primary, autoAttempt, instructions, web };
}

function planAndroid(target: AppTarget, inApp: InAppKey | null): EscapePlan {
  // WeChat blocks intents and every other escape: only its own menu gets the user out.
  if (inApp === 'wechat') return plan(null, false, 'wechat', target.web);
  if (target.android === null) return plan(null, false, null, target.web);
  const primary = { href: target.android, kind: 'intent' as const };
  // TikTok's webview handles intents unreliably: offer the tap, no automatic attempt (a refused scheme
  // can replace the page with an error), and say how to open the page in a browser.
  if (inApp === 'tiktok') return plan(primary, false, 'tiktok', target.web);
  return plan(primary, true, null, target.web);
}

function planIos(target: AppTarget, inApp: InAppKey | null): EscapePlan {
  if (IOS_LIKE_SAFARI.has(inApp)) {
    // A universal link fires only on a real tap: never attempted by script.
    return plan({ href: target.iosUniversal, kind: 'universal' }, false, null, target.web);
  }
  if (inApp === 'snapchat' || inApp === 'wechat') return plan(null, false, inApp, target.web);
  if (inApp !== null && IOS_FORWARDS_SCHEMES.has(inApp) && target.ios !== null) {
    return plan({ href: target.ios, kind: 'scheme' }, true, null, target.web);
  }
  // TikTok, Messenger, the forwarding webviews without an app scheme, and webviews we know nothing
  // about: bounce to Safari, where the web page (and the app's smart banner / universal links) work.
  return plan({ href: xSafariUrl(target.web), kind: 'x-safari' }, false, null, target.web);
}

/**
 * The escape strategy for this destination and visitor (reference 3.6). Pure and cheap. `_matrix` and
 * `_choose` are the escape matrix's parameters (issue #18): this planner allows one strategy per cell, so
 * there is nothing to choose among; the matrix's planner asks `choose` where a cell allows several.
 */
export function planEscape(
  target: AppTarget,
  visitor: Visitor,
  _matrix?: unknown,
  _choose?: ChooseStrategy,
): EscapePlan {
  if (visitor.os === 'android') return planAndroid(target, visitor.inApp);
  if (visitor.os === 'ios') return planIos(target, visitor.inApp);
  // Desktops are redirected before a page is rendered; should one get here, the web link is all it needs.
  return plan(null, false, null, target.web);
}
