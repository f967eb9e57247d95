import type { SourceItem } from '../schema.js';

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
