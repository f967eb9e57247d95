import type { IncomingHttpHeaders } from 'node:http';

/**
 * Small, allocation-light readers of a visit's headers for the click row, for the redirect's hot path:
 * no URL object is built per visit.
 */

/** Edge headers that carry the visitor's city, in the order tried (Cloudflare, Vercel, CloudFront, App Engine). */
export const CITY_HEADERS = [
  'cf-ipcity',
  'x-vercel-ip-city',
  'cloudfront-viewer-city',
  'x-appengine-city',
] as const;

const HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]+)/i;

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32 || code === 127) return true;
  }
  return false;
}

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** The host of the Referer header, lowercased, or null (no header, not a URL, or an unusable value). */
export function referrerHostOf(headers: IncomingHttpHeaders): string | null {
  const referer = first(headers.referer);
  if (!referer) return null;
  const host = HOST.exec(referer)?.[1]?.toLowerCase();
  return host && host.length <= 253 && !hasControl(host) ? host : null;
}

/** The visitor's city when an edge header gives one (URL-decoded, at most 64 characters), else null. */
export function cityOf(headers: IncomingHttpHeaders): string | null {
  for (const name of CITY_HEADERS) {
    const raw = first(headers[name]);
    if (!raw) continue;
    let city = raw;
    if (raw.includes('%')) {
      try {
        city = decodeURIComponent(raw);
      } catch {
        continue;
      }
    }
    city = city.trim();
    if (city !== '' && city.length <= 64 && !hasControl(city)) return city;
  }
  return null;
}

// The last second formatted, as `YYYY-MM-DDTHH:MM:SS`: visits within one second share it.
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()` for the epoch milliseconds of a visit, formatting each second once: under
 * load thousands of escape pages a second stamp their tap tokens, and V8 formats dates through printf.
 */
export function isoTimeOf(time: number): string {
  // Before 1970 (and NaN): Date's own rounding and errors, rather than mirroring them here.
  if (!(time >= 0)) return new Date(time).toISOString();
  const ms = Math.trunc(time);
  const second = Math.floor(ms / 1000);
  // After 9999 toISOString uses the expanded year form: not cached.
  if (second !== isoSecond) {
    const iso = new Date(ms).toISOString();
    if (iso.length !== 24) return iso;
    isoSecond = second;
    isoPrefix = iso.slice(0, 19);
  }
  const millis = ms - second * 1000;
  return `${isoPrefix}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
