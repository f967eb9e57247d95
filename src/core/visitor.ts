import { isbot } from 'isbot';
import { LruCache } from './lru-cache.js';
import type { InAppKey, Os } from './visitor/kinds.js';
import { detectInApp, detectOs, isExtraBot, isPreviewFetcher } from './visitor/tokens.js';

export type { InAppKey, Os } from './visitor/kinds.js';
export { IN_APP_KEYS } from './visitor/kinds.js';

export interface Visitor {
  os: Os;
  mobile: boolean;
  /** The app whose in-app browser made the request, 'other_webview' for an unnamed one, null for a browser. */
  inApp: InAppKey | null;
  /** isbot, a fetcher isbot misses (EXTRA_BOTS), or a link-preview fetcher: gets the redirect, never counts as a tap. */
  bot: boolean;
  /** A link-preview fetcher (Facebook, WhatsApp, Slack, iMessage, ...), a subset of `bot`. */
  preview: boolean;
  /** Loaded by a prefetch / prerender, not by a person. */
  prefetch: boolean;
}

const PREFETCH = /\bpre(?:fetch|render)\b/i;

function isPrefetch(purpose: string | undefined): boolean {
  return purpose !== undefined && purpose !== '' && PREFETCH.test(purpose);
}

/** Everything that depends on the user agent alone; `prefetch` comes from the Purpose header. */
function classifyAgent(userAgent: string | undefined): Visitor {
  const ua = userAgent ?? '';
  if (ua === '')
    return { os: 'other', mobile: false, inApp: null, bot: false, preview: false, prefetch: false };
  const preview = isPreviewFetcher(ua);
  // The bot check decides before anything else: Googlebot smartphone and Applebot look like phones, and
  // iMessage's fetcher looks like desktop Safari. A bot is never a phone and never an in-app browser.
  if (preview || isbot(ua) || isExtraBot(ua))
    return { os: 'other', mobile: false, inApp: null, bot: true, preview, prefetch: false };
  const os = detectOs(ua);
  const mobile = os === 'ios' || os === 'android';
  return { os, mobile, inApp: detectInApp(ua, os), bot: false, preview: false, prefetch: false };
}

/**
 * Classifies one request. `userAgent` may be undefined or empty (os 'other', not a bot: a plain
 * redirect). `purpose` is the Sec-Purpose or Purpose request header.
 */
export function classifyVisitor(userAgent: string | undefined, purpose?: string | undefined): Visitor {
  const visitor = classifyAgent(userAgent);
  visitor.prefetch = isPrefetch(purpose);
  return visitor;
}

/** Longer user agents are classified without caching, so a flood of huge headers cannot fill memory. */
const MAX_CACHED_UA_LENGTH = 1024;
/** Slots of the classifier's front table (a power of two). */
const FRONT_SLOTS = 256;

interface CacheEntry {
  plain: Visitor;
  prefetch?: Visitor;
}

/**
 * A memoizing classifier for the hot path. Real traffic repeats a few thousand user agents, so a bounded
 * LRU keyed by the UA turns the regex work into a map lookup. Results are frozen (they are shared) and
 * equal to classifyVisitor's. The Purpose header is reduced to a boolean before the lookup, so it cannot
 * be used to multiply cache entries.
 */
export type VisitorClassifier = ((userAgent: string | undefined, purpose?: string) => Visitor) & {
  /** User agents held by the LRU now (for /metrics; the front table only points into it). */
  entries(): number;
};

export function createVisitorClassifier(options: { cacheSize?: number } = {}): VisitorClassifier {
  const capacity = options.cacheSize ?? 5000;
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError('cacheSize must be a positive integer');
  const cache = new LruCache<string, CacheEntry>(capacity);
  // In front of the LRU, a small direct-mapped table: a user agent is a fresh string of 100 to 300
  // characters on every request, and hashing all of it for the map costs more than comparing it with
  // the one user agent last seen in its slot. The slot comes from the length and three characters; the
  // full comparison decides, so a collision only costs the map lookup behind it.
  const front: ({ ua: string; entry: CacheEntry } | undefined)[] = new Array(FRONT_SLOTS);

  const classify = (userAgent: string | undefined, purpose?: string): Visitor => {
    const ua = userAgent ?? '';
    const prefetch = isPrefetch(purpose);
    const length = ua.length;
    if (length > MAX_CACHED_UA_LENGTH) return classifyVisitor(ua, purpose);
    const slot =
      (length * 31 +
        ua.charCodeAt(length - 1) * 7 +
        ua.charCodeAt(length >> 1) * 3 +
        ua.charCodeAt(length >> 2)) &
      (FRONT_SLOTS - 1);
    const seen = front[slot];
    let entry = seen !== undefined && seen.ua === ua ? seen.entry : cache.get(ua);
    if (entry === undefined) {
      entry = { plain: Object.freeze(classifyAgent(ua)) };
      cache.set(ua, entry);
    }
    if (seen?.entry !== entry) front[slot] = { ua, entry };
    if (!prefetch) return entry.plain;
    entry.prefetch ??= Object.freeze({ ...entry.plain, prefetch: true });
    return entry.prefetch;
  };
  return Object.assign(classify, { entries: () => cache.size });
}
