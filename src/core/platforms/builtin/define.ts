import type { ContentType, Platform } from '../types.js';
import { enc, hostPathQuery, normalizeHost, pathSegments } from '../url-parts.js';

/** What a built-in's path parser hands to its iOS mapper: the content type plus the ids it read. */
export interface Content {
  type: ContentType;
  [id: string]: string | undefined;
}

/** The parsed request a path parser sees: normalised host, decoded segments, and the URL itself. */
export interface Req {
  host: string;
  segs: string[];
  url: URL;
}

type Base = Omit<Platform, 'iosUrl' | 'contentTypeOf'>;

/**
 * A built-in from one path parser and one iOS mapper. The parser is the single source of truth: a path it
 * does not recognise is not app content, and the iOS mapper only ever sees recognised content.
 */
export function define(
  base: Base,
  parse: (req: Req) => Content | null,
  ios: (content: Content, req: Req) => string | null,
): Platform {
  const read = (url: URL): { content: Content; req: Req } | null => {
    const segs = pathSegments(url);
    if (segs === null) return null;
    const req = { host: normalizeHost(url.hostname), segs, url };
    const content = parse(req);
    return content ? { content, req } : null;
  };
  return {
    ...base,
    contentTypeOf: (url) => read(url)?.content.type ?? null,
    iosUrl: (url) => {
      const found = read(url);
      return found ? ios(found.content, found.req) : null;
    },
  };
}

export const noIos = (): null => null;

/** `<scheme>://<host><path><query>`: the app is handed the web URL with only its scheme swapped. */
export function lossless(scheme: string, url: URL, host?: string): string {
  const rest = hostPathQuery(url);
  return `${scheme}://${host === undefined ? rest : host + rest.slice(url.host.length)}`;
}

/** `a=1&b=2` from pairs, skipping null values; every value is percent-encoded. */
export function query(pairs: [string, string | null | undefined][]): string {
  return pairs
    .filter((pair): pair is [string, string] => pair[1] !== null && pair[1] !== undefined)
    .map(([k, v]) => `${k}=${enc(v)}`)
    .join('&');
}

export const HANDLE = /^[A-Za-z0-9_.]{1,30}$/;
export const DIGITS = /^\d{1,25}$/;
export const SLUG = /^[A-Za-z0-9_.-]{1,100}$/;
