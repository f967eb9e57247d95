/**
 * URL pieces shared by matching, the built-in mappers and the target builders. Everything that ends up in
 * a generated intent or scheme URL passes through `cleanPart` or `enc`, so no input can add a `#`, a quote,
 * whitespace or a new scheme to it.
 */

const HOST_PREFIXES = ['www.', 'm.', 'mobile.'];

/** An absolute http(s) URL, or null for anything else (other schemes, garbage, credentials, odd ports). */
export function parseHttpUrl(destination: string | URL): URL | null {
  let url: URL;
  if (destination instanceof URL) {
    url = destination;
  } else {
    if (typeof destination !== 'string' || destination.length > 8192) return null;
    try {
      url = new URL(destination);
    } catch {
      return null;
    }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // A userinfo part or a non-default port is not the platform's own site; it is a phishing shape at best.
  if (url.username !== '' || url.password !== '' || url.port !== '') return null;
  if (url.hostname === '' || isIpHost(url.hostname)) return null;
  return url;
}

export function isIpHost(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Lower-cased, without a trailing dot. */
export function exactHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * The host without one leading www./m./mobile., unless what remains has no dot: `m.me` (Messenger) stays
 * `m.me`, `m.youtube.com` becomes `youtube.com`.
 */
export function normalizeHost(hostname: string): string {
  const host = exactHost(hostname);
  for (const prefix of HOST_PREFIXES) {
    if (host.startsWith(prefix)) {
      const rest = host.slice(prefix.length);
      return rest.includes('.') ? rest : host;
    }
  }
  return host;
}

/** The host forms to look up, most specific first. */
export function hostCandidates(hostname: string): string[] {
  const exact = exactHost(hostname);
  const bare = normalizeHost(hostname);
  return bare === exact ? [exact] : [exact, bare];
}

// RFC 3986 unreserved + the reserved characters that are harmless inside an intent data part or an
// attribute; everything else (quotes, <, >, `, {, }, |, \, ^, [, ], space, #) is percent-encoded.
const UNSAFE_IN_PART = /[^A-Za-z0-9\-._~:/?@!$&()*+,;=%]/g;

/** Percent-encodes what WHATWG serialisation leaves raw but an intent/scheme URL must not carry. */
export function cleanPart(part: string): string {
  return part.replace(UNSAFE_IN_PART, (c) => enc(c));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** encodeURIComponent that never throws, and that also encodes ' ( ) * ! (safe inside any attribute). */
export function enc(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(
    /['()*!]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `<host><path><query>` of the URL, fragment dropped, safe for an intent data part or a scheme URL. */
export function hostPathQuery(url: URL): string {
  return `${url.host}${cleanPart(url.pathname)}${cleanPart(url.search)}`;
}

/** The decoded, non-empty path segments, or null when the path holds malformed percent-encoding. */
export function pathSegments(url: URL): string[] | null {
  const out: string[] = [];
  for (const raw of url.pathname.split('/')) {
    if (raw === '') continue;
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return out;
}

/** A query value, or null when absent or blank. */
export function param(url: URL, name: string): string | null {
  const value = url.searchParams.get(name);
  return value === null || value.trim() === '' ? null : value;
}

const SCHEME_URL = /^([a-z][a-z0-9+.-]*):[!-~]*$/i;
const FORBIDDEN_SCHEMES = new Set([
  'http',
  'https',
  'javascript',
  'data',
  'file',
  'vbscript',
  'blob',
  'about',
]);

/**
 * The last guard before a scheme URL leaves the core: a single custom scheme followed by printable ASCII
 * with no quote, angle bracket, backslash or fragment marker.
 */
export function isSafeSchemeUrl(value: string): boolean {
  const m = SCHEME_URL.exec(value);
  if (!m || /["'<>\\`#\s]/.test(value)) return false;
  return !FORBIDDEN_SCHEMES.has((m[1] ?? '').toLowerCase());
}

export function isForbiddenScheme(scheme: string): boolean {
  return FORBIDDEN_SCHEMES.has(scheme.toLowerCase());
}
