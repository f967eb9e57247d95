import { createSourceHttp, type SourceHttpDeps } from './http.js';
import {
  countOf,
  type ImportSource,
  isoDate,
  origin,
  record,
  requireRecord,
  shortParts,
  text,
  withoutScheme,
} from './items.js';

/**
 * YOURLS: the core API's `action=stats&filter=last&limit=100&start=N&format=json`, authenticated by the
 * `signature` parameter. It pages every link of the install with title, date and clicks (the `list`
 * action some guides name is a plugin, absent from a stock install). Links come as `{link_1: {...}}`;
 * errors are `{message, errorCode}`.
 */

const PAGE_SIZE = 100;

export interface YourlsParams {
  baseUrl: string;
  signature: string;
}

/** The API endpoint: the given yourls-api.php, or the one at the root of the install. */
export function yourlsEndpoint(baseUrl: string): string {
  const base = origin(baseUrl);
  return /\/yourls-api\.php$/i.test(base) ? base : `${base}/yourls-api.php`;
}

export function openYourls(params: YourlsParams, deps: SourceHttpDeps): ImportSource {
  const endpoint = yourlsEndpoint(params.baseUrl);
  const http = createSourceHttp(deps, {
    name: 'YOURLS',
    headers: {},
    describe: (body) => text(record(body).message),
  });

  return {
    async fetchPage(cursor) {
      const start = Number(cursor ?? '0');
      const query = new URLSearchParams({
        signature: params.signature,
        action: 'stats',
        filter: 'last',
        limit: String(PAGE_SIZE),
        start: String(start),
        format: 'json',
      });
      const body = requireRecord(await http.getJson(`${endpoint}?${query}`), 'YOURLS', 'the answer');
      // Past the end YOURLS sends no `links` (or PHP's empty array, `[]`); otherwise `{link_1: {...}}`.
      const empty = body.links === undefined || (Array.isArray(body.links) && body.links.length === 0);
      const links = empty ? [] : Object.values(requireRecord(body.links, 'YOURLS', '`links`')).map(record);
      const items = links.map((link) => {
        const shortUrl = text(link.shorturl) ?? '';
        const { host, slug } = shortParts(shortUrl, new Set());
        return {
          key: withoutScheme(shortUrl),
          label: withoutScheme(shortUrl),
          url: text(link.url) ?? '',
          slug,
          host,
          tags: [],
          title: text(link.title),
          createdAt: isoDate(link.timestamp),
          visits: countOf(link.clicks),
        };
      });
      const total = countOf(record(body.stats).total_links);
      const after = start + links.length;
      const more = links.length === PAGE_SIZE && (total === null || after < total);
      return { items, next: more ? String(after) : null, total };
    },
  };
}
