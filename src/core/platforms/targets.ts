import { unwrap } from './match.js';
import type { AppTarget, Platform, PlatformTable } from './types.js';
import { enc, hostPathQuery, isSafeSchemeUrl, parseHttpUrl } from './url-parts.js';

/**
 * `intent://<host><path><?query>#Intent;scheme=<http|https>;package=<pkg>;S.browser_fallback_url=<enc>;end`
 * (Chrome's documented form). The destination's fragment is dropped: a literal `#` would end the data
 * part, and `hostPathQuery` percent-encodes every other character that could break the syntax. The
 * fallback is encodeURIComponent'd, plus ' ( ) * ! so the whole intent is safe in any HTML attribute (it
 * decodes to the same URL).
 */
export function androidIntentUrl(
  url: URL,
  android: NonNullable<Platform['android']>,
  fallback: string,
): string {
  const scheme = url.protocol === 'http:' ? 'http' : 'https';
  const pkg = android.packageless ? '' : `package=${android.package};`;
  return `intent://${hostPathQuery(url)}#Intent;scheme=${scheme};${pkg}S.browser_fallback_url=${enc(fallback)};end`;
}

/** `value` when it is an http(s) URL (ports and IPs allowed: it is ours), else undefined. */
function ownUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Above this many characters of encoded fallback, the intent falls back through our short address
 * instead: a 4,000-character destination carried twice more in the intent would push the escape page
 * past its 10 KB budget. The hand-off part of the intent always keeps the whole destination.
 */
const MAX_INLINE_FALLBACK = 1024;

function fallbackFor(options: TargetOptions, web: string): string {
  const own = ownUrl(options.fallbackUrl);
  if (own !== undefined) return own;
  const via = ownUrl(options.via);
  return via !== undefined && enc(web).length > MAX_INLINE_FALLBACK ? via : web;
}

/** The link's own address with the `esc=1` marker, for the iOS bounce to Safari. */
function bounceOf(selfUrl: string | undefined): string | undefined {
  const own = ownUrl(selfUrl);
  if (own === undefined) return undefined;
  const url = new URL(own);
  url.hash = '';
  url.searchParams.set('esc', '1');
  return url.href;
}

export interface TargetOptions {
  /** Where Android lands when the app cannot take the intent (default: the destination). */
  fallbackUrl?: string;
  /** The short link's own address (`https://go.example/abc`). */
  selfUrl?: string;
  /** A short address of ours that redirects to the website (hosted: `/_fallback/<slug>`). */
  via?: string;
}

// Same rule as PLATFORMS_FILE; a code override with a broken package must not inject intent extras.
const ANDROID_PACKAGE = /^[a-zA-Z][\w]*(\.[a-zA-Z][\w]*)+$/;

function iosUrlOf(platform: Platform, url: URL): string | null {
  if (platform.ios === null) return null;
  let value: string | null;
  try {
    value = platform.iosUrl(url);
  } catch {
    // A mapper bug must cost the scheme button, not the visit.
    return null;
  }
  return value !== null && isSafeSchemeUrl(value) ? value : null;
}

/**
 * fallbackUrl defaults to the web URL (or `via` when the web URL is too long to carry inline); the caller
 * may pass a tracking URL instead (a non-http one is ignored). Returns null when no platform owns the destination, or when the platform's app can't open that
 * path (contentTypeOf === null), so the caller just redirects. A wrapped destination (l.facebook.com?u=...)
 * is targeted, and falls back, to the URL it wraps.
 */
export function appTargetFor(
  table: PlatformTable,
  destination: string,
  options: TargetOptions = {},
): AppTarget | null {
  const parsed = parseHttpUrl(destination);
  const url = parsed && unwrap(parsed);
  if (!url) return null;
  const platform = table.match(url);
  if (!platform) return null;
  const contentType = platform.contentTypeOf(url);
  if (contentType === null) return null;
  const web = url.href;
  const fallback = fallbackFor(options, web);
  const bounce = bounceOf(options.selfUrl);
  const via = ownUrl(options.via);
  return {
    platformKey: platform.key,
    platformName: platform.name,
    contentType,
    web,
    ios: iosUrlOf(platform, url),
    iosUniversal: web,
    android:
      platform.android && ANDROID_PACKAGE.test(platform.android.package)
        ? androidIntentUrl(url, platform.android, fallback)
        : null,
    androidPackage: platform.android?.package ?? null,
    appStoreId: platform.ios?.appStoreId ?? null,
    ...(bounce === undefined ? {} : { bounce }),
    ...(via === undefined ? {} : { via }),
  };
}
