import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { isEscapeStrategy } from '../../core/escape/bandit.js';
import type { EscapeStrategy } from '../../core/escape/index.js';
import type { ClickSource } from '../model.js';
import { createHmacSha256 } from './hmac-sha256.js';

/**
 * Tap tokens (decisions.md "Tap outcomes"): the escape page of one human visit carries a signed, expiring,
 * single-use token; its beacon hands it back with the outcome. The token carries everything the outcome
 * needs (ids, variant, the webhook's tap context), so recording an outcome never reads the link or waits
 * for the visit's buffered click row.
 */

export interface TapContext {
  tapId: string;
  linkId: string;
  orgId: string;
  slug: string;
  shortHost: string;
  platformKey: string | null;
  sourceApp: string | null;
  country: string | null;
  city: string | null;
  device: string | null;
  /** ISO time of the tap. */
  ts: string;
  /** Expiry, epoch seconds. */
  exp: number;
  /** The A/B variant served, so outcomes can be split per variant. */
  variant?: number | null;
  /**
   * The escape strategy the page used, so outcomes can be split per cell (in-app browser = `sourceApp`,
   * OS = `device`, `platformKey`). A trailing field: tokens issued before it still verify, as null.
   */
  strategy?: EscapeStrategy | null;
  /**
   * `qr` when the visit came through the link's QR code. A trailing field written only for QR visits, so
   * other tokens are unchanged and tokens issued before it read as `link`.
   */
  source?: ClickSource;
}

/** What the redirect knows at the visit; `exp` is added by `issue`. */
export type TapIssue = Omit<TapContext, 'exp'>;

/** What every visit of one link in one cell (in-app browser, OS, platform) with one strategy shares. */
export type TapConstant = Pick<
  TapIssue,
  'linkId' | 'orgId' | 'slug' | 'shortHost' | 'platformKey' | 'sourceApp' | 'device' | 'strategy'
>;

/** What is a visit's own. */
export type TapVisit = Pick<TapIssue, 'tapId' | 'country' | 'city' | 'ts' | 'variant' | 'source'>;

/** A cell's share of its tokens, encoded once (`prefix`), for `issueWith`. */
export interface TapPrefix {
  readonly encoded: string;
}

/** Claims a tap id once: true the first time, false for a replay. `ttlMs` bounds how long it is kept. */
export type OneShot = (tapId: string, ttlMs: number) => Promise<boolean>;

export interface TapTokenOptions {
  /** SESSION_SECRET; a purpose-bound subkey is derived from it. */
  secret: string;
  ttlSeconds?: number;
  /** Epoch milliseconds. */
  now?: () => number;
  oneShot?: OneShot;
}

/**
 * The payload layout. Version 2 puts the fields a cell shares first, so their encoding is kept per cell;
 * version 1 (the visit's tap id first) is still read, for tokens issued before an upgrade.
 */
const VERSION = 2;
const MAX_TOKEN_LENGTH = 2048;
const SIGNATURE_LENGTH = 43; // base64url of 32 bytes

const str = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
const optStr = (value: unknown, max: number): value is string | null => value === null || str(value, max);

const jsonOrNull = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));

/** A signed payload's fields as a tap context, by layout version; null when malformed or expired. */
function checkedContext(fields: unknown[], nowMs: number): TapContext | null {
  const [version] = fields;
  let named: unknown[];
  let qr = false;
  if (version === 2) {
    // Version 2: what a cell shares first, then the visit's own fields (see `prefix` and `issueWith`).
    const [, linkId, orgId, slug, shortHost, platformKey, sourceApp, device, strategy, ...own] = fields;
    const [variant, country, city, ts, exp, tapId, source, ...extra] = own;
    if (extra.length > 0 || (source !== undefined && source !== 'qr')) return null;
    if (source === 'qr') qr = true;
    named = [
      tapId,
      linkId,
      orgId,
      slug,
      shortHost,
      platformKey,
      sourceApp,
      country,
      city,
      device,
      ts,
      exp,
      variant,
      strategy,
    ];
  } else if (version === 1) {
    // Version 1: the same fields with the tap id first; the trailing strategy came later (null before).
    named = fields.slice(1);
    if (named.length === 13) named.push(null);
  } else return null;
  if (named.length !== 14) return null;
  const [tapId, linkId, orgId, slug, shortHost, platformKey, sourceApp, country, city, device, ts, exp] =
    named;
  const [variant, strategy] = named.slice(12);
  // Signed by us, so malformed content means a key or version mix-up: refuse rather than guess.
  if (!str(tapId, 64) || !str(linkId, 64) || !str(orgId, 64) || !str(slug, 64) || !str(ts, 40)) return null;
  if (typeof shortHost !== 'string' || shortHost.length > 253) return null;
  if (!optStr(platformKey, 64) || !optStr(sourceApp, 64) || !optStr(country, 8)) return null;
  if (!optStr(city, 128) || !optStr(device, 16)) return null;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp * 1000 <= nowMs) return null;
  if (
    variant !== null &&
    !(Number.isInteger(variant) && (variant as number) >= 0 && (variant as number) < 16)
  )
    return null;
  if (strategy !== null && !isEscapeStrategy(strategy)) return null;
  return {
    tapId,
    linkId,
    orgId,
    slug,
    shortHost,
    platformKey,
    sourceApp,
    country,
    city,
    device,
    ts,
    exp,
    variant: variant as number | null,
    strategy,
    source: qr ? 'qr' : 'link',
  };
}

export function createTapTokens(options: TapTokenOptions) {
  const ttlSeconds = options.ttlSeconds ?? 600;
  const now = options.now ?? Date.now;
  const oneShot = options.oneShot ?? createMemoryOneShot({ now });
  // A key of its own: a tap token can never be replayed as a session or password cookie, or the reverse.
  const key = createHmac('sha256', options.secret).update('linkhop/tap-token/v1').digest();
  const sign = createHmacSha256(key);

  function verify(token: unknown): TapContext | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length - dot - 1 !== SIGNATURE_LENGTH) return null;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(sign(payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let fields: unknown;
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    return Array.isArray(fields) ? checkedContext(fields, now()) : null;
  }

  /** The part of a token's payload shared by every visit of one link, cell and strategy: encoded once. */
  function prefix(constant: TapConstant): TapPrefix {
    const shared = JSON.stringify([
      VERSION,
      constant.linkId,
      constant.orgId,
      constant.slug,
      constant.shortHost,
      constant.platformKey,
      constant.sourceApp,
      constant.device,
      constant.strategy ?? null,
    ]);
    const text = `${shared.slice(0, -1)},`;
    // Whitespace after the comma (valid JSON) makes the bytes a multiple of 3: its base64url then ends on
    // a whole group, so a visit's own fields are encoded alone and appended.
    const padded = text + ' '.repeat((3 - (Buffer.byteLength(text) % 3)) % 3);
    return { encoded: Buffer.from(padded).toString('base64url') };
  }

  /** A visit's token from its cell's prefix: only the visit's own fields are serialized and encoded. */
  function issueWith(shared: TapPrefix, visit: TapVisit): string {
    const exp = Math.floor(now() / 1000) + ttlSeconds;
    const variant = visit.variant ?? null;
    const own =
      `${variant === null ? 'null' : variant},${jsonOrNull(visit.country)},${jsonOrNull(visit.city)},` +
      `${JSON.stringify(visit.ts)},${exp},${JSON.stringify(visit.tapId)}${visit.source === 'qr' ? ',"qr"' : ''}]`;
    const payload = shared.encoded + Buffer.from(own).toString('base64url');
    return `${payload}.${sign(payload)}`;
  }

  return {
    ttlSeconds,
    prefix,
    issueWith,

    /**
     * A compact token: base64url(JSON array) + '.' + base64url(HMAC-SHA256). Pure and synchronous. The
     * redirect keeps each cell's `prefix` and calls `issueWith`; this does both in one call.
     */
    issue(ctx: TapIssue): string {
      return issueWith(prefix(ctx), ctx);
    },

    /** The context of a genuine, unexpired token, or null. Never throws. */
    verify,

    /** verify, then claim the tap once: a replay of a valid token answers null. */
    async redeem(token: unknown): Promise<TapContext | null> {
      const ctx = verify(token);
      if (!ctx) return null;
      const ttlMs = Math.max(1, ctx.exp * 1000 - now());
      return (await oneShot(ctx.tapId, ttlMs)) ? ctx : null;
    },
  };
}

export type TapTokens = ReturnType<typeof createTapTokens>;

/**
 * One instance's guard: a bounded map of tap id -> expiry. When full, expired ids go first, then the
 * oldest; a replay of an evicted id still cannot count twice, because the store keeps the first outcome.
 */
export function createMemoryOneShot(
  options: { maxEntries?: number; now?: () => number } = {},
): OneShot & { size(): number } {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  const oneShot: OneShot = async (tapId, ttlMs) => {
    const at = now();
    const expiry = seen.get(tapId);
    if (expiry !== undefined && expiry > at) return false;
    seen.delete(tapId);
    if (seen.size >= maxEntries) {
      // Insertion order is expiry order under one TTL: drop from the front until a live id fits.
      for (const [id, until] of seen) {
        if (until > at && seen.size < maxEntries) break;
        seen.delete(id);
      }
    }
    seen.set(tapId, at + ttlMs);
    return true;
  };
  /** Tap ids held (for /metrics: up to maxEntries of them, about 100 bytes each). */
  return Object.assign(oneShot, { size: () => seen.size });
}

/** Every instance's guard (REDIS_URL): `SET key 1 PX ttl NX` succeeds once per tap id. */
export function createRedisOneShot(redis: Redis, prefix = 'linkhop:tap:'): OneShot {
  return async (tapId, ttlMs) =>
    (await redis.set(`${prefix}${tapId}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
}
