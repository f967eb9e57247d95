import type { SourceItem } from '../schema.js';
import { SourceError } from './http.js';

/** Reading the sources' short URLs, dates and counts into a SourceItem, the same way for every source. */

export interface SourcePage {
  items: SourceItem[];
  /** Where the next page starts (opaque to the worker, persisted as is), or null after the last page. */
  next: string | null;
  /** How many items the source says it holds, when it says. */
  total: number | null;
}

export interface ImportSource {
  fetchPage(cursor: string | null): Promise<SourcePage>;
}

/** `https://s.example/abc` -> `s.example/abc`: how a short link is written and named in errors. */
export function withoutScheme(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
}

/**
 * The hostname and slug of a short URL. The host is null on `shared` hosts (the service's own domains,
 * which cannot move here) so the link goes to the default host without a note.
 */
export function shortParts(
  shortUrl: string,
  shared: ReadonlySet<string>,
): { host: string | null; slug: string | null } {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(shortUrl) ? shortUrl : `https://${shortUrl}`);
    const host = url.hostname.toLowerCase();
    const path = decodeURIComponent(url.pathname.replace(/^\/+/, ''));
    return { host: shared.has(host) ? null : host, slug: path === '' ? null : path };
  } catch {
    return { host: null, slug: null };
  }
}

/**
 * ISO 8601 in UTC, or null. Bitly writes offsets as `+0000`; YOURLS writes MySQL's `2024-01-02 03:04:05`,
 * a time without a zone, read here as UTC.
 */
export function isoDate(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  let text = value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) text = `${text.replace(' ', 'T')}Z`;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** A count the source may write as a number or a numeric string (YOURLS); null otherwise. */
export function countOf(value: unknown): number | null {
  const count = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : null;
}

export const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;

export const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export const stringList = (value: unknown): string[] =>
  list(value).filter((item): item is string => typeof item === 'string');

/** An API origin without a trailing slash, for joining paths. */
export const origin = (baseUrl: string): string => baseUrl.trim().replace(/\/+$/, '');

/**
 * Malformed answers end the import with a reason (issue 30): a part of the answer the paging depends on
 * that is missing or of the wrong type is never read as "no more links".
 */
export function malformed(source: string, what: string, value: unknown): SourceError {
  const shown = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value)).slice(0, 80);
  return new SourceError(`${source} sent an answer linkhop cannot read: ${what} (got ${shown})`);
}

export function requireRecord(value: unknown, source: string, what: string): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return value as Record<string, unknown>;
  throw malformed(source, `${what} is not an object`, value);
}

export function requireList(value: unknown, source: string, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw malformed(source, `${what} is not a list`, value);
}

/**
 * The URL of the next page a source names, or null on the last page (absent or ''). It must be an http(s)
 * URL on `base`'s origin: the credentials go wherever it points.
 */
export function nextPageUrl(value: unknown, base: string, source: string, what: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  let url: URL | null = null;
  try {
    url = typeof value === 'string' ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw malformed(source, `${what} is not an http(s) URL`, value);
  const expected = new URL(base).origin;
  if (url.origin !== expected)
    throw new SourceError(`${source}'s next page is on another origin (${url.origin}, not ${expected})`);
  return url.href;
}
