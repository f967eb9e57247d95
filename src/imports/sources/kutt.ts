import { createSourceHttp, type SourceHttpDeps } from './http.js';
import {
  countOf,
  type ImportSource,
  isoDate,
  origin,
  record,
  requireList,
  requireRecord,
  shortParts,
  text,
  withoutScheme,
} from './items.js';

/**
 * Kutt API v2: `GET /api/v2/links?limit=50&skip=N` (Kutt serves at most 50 a page) answers
 * `{total, limit, skip, data}`. Kutt has no tags or titles; its `description` stands in for the title.
 * Errors are `{error}`.
 */

const PAGE_SIZE = 50;
const SHARED_HOSTS = new Set(['kutt.it', 'kutt.to']);

export interface KuttParams {
  baseUrl: string;
  apiKey: string;
}

export function openKutt(params: KuttParams, deps: SourceHttpDeps): ImportSource {
  const base = origin(params.baseUrl);
  const http = createSourceHttp(deps, {
    name: 'Kutt',
    headers: { 'x-api-key': params.apiKey },
    describe: (body) => text(record(body).error),
  });

  return {
    async fetchPage(cursor) {
      const skip = Number(cursor ?? '0');
      const answer = await http.getJson(`${base}/api/v2/links?limit=${PAGE_SIZE}&skip=${skip}`);
      const body = requireRecord(answer, 'Kutt', 'the answer');
      const data = requireList(body.data, 'Kutt', '`data`');
      const items = data.map((entry) => {
        const link = record(entry);
        // `link` is the short URL; some Kutt versions send `{link, url}` instead of a string.
        const shortUrl = text(link.link) ?? text(record(link.link).url) ?? '';
        const { host } = shortParts(shortUrl, SHARED_HOSTS);
        return {
          key: text(link.id) ?? withoutScheme(shortUrl),
          label: withoutScheme(shortUrl),
          url: text(link.target) ?? '',
          slug: text(link.address),
          host,
          tags: [],
          title: text(link.description),
          createdAt: isoDate(link.created_at),
          visits: countOf(link.visit_count),
        };
      });
      const total = countOf(body.total);
      const after = skip + data.length;
      const more = data.length > 0 && (total === null ? data.length === PAGE_SIZE : after < total);
      return { items, next: more ? String(after) : null, total };
    },
  };
}
