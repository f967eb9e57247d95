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

/** The caller's fallback when it is an http(s) URL (ports and IPs allowed: it is ours), else the web URL. */
function fallbackFor(fallbackUrl: string | undefined, web: string): string {
  if (fallbackUrl === undefined) return web;
  try {
    const url = new URL(fallbackUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : web;
  } catch {
    return web;
  }
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
 * fallbackUrl defaults to the web URL; the caller may pass a tracking URL instead (a non-http one is
 * ignored). Returns null when no platform owns the destination, or when the platform's app can't open that
 * path (contentTypeOf === null), so the caller just redirects. A wrapped destination (l.facebook.com?u=...)
 * is targeted, and falls back, to the URL it wraps.
 */
export function appTargetFor(
  table: PlatformTable,
  destination: string,
  options: { fallbackUrl?: string } = {},
): AppTarget | null {
  const parsed = parseHttpUrl(destination);
  const url = parsed && unwrap(parsed);
  if (!url) return null;
  const platform = table.match(url);
  if (!platform) return null;
  const contentType = platform.contentTypeOf(url);
  if (contentType === null) return null;
  const web = url.href;
  const fallback = fallbackFor(options.fallbackUrl, web);
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
  };
}
