import { createSourceHttp, type SourceHttpDeps } from './http.js';
import {
  countOf,
  type ImportSource,
  isoDate,
  list,
  origin,
  record,
  requireList,
  shortParts,
  text,
  withoutScheme,
} from './items.js';

/**
 * Dub's links API: `GET /links?page=N&pageSize=100` (newest first, archived included, tags included)
 * answers an array; a short page is the last. `GET /links/count` gives the total for the progress bar.
 * Errors are `{error: {code, message, doc_url}}`.
 */

export const DUB_API = 'https://api.dub.co';
const PAGE_SIZE = 100;
const SHARED_HOSTS = new Set(['dub.sh', 'dub.link']);

export interface DubParams {
  apiKey: string;
  baseUrl?: string | undefined;
}

export function openDub(params: DubParams, deps: SourceHttpDeps): ImportSource {
  const base = origin(params.baseUrl ?? DUB_API);
  const http = createSourceHttp(deps, {
    name: 'Dub',
    headers: { authorization: `Bearer ${params.apiKey}` },
    describe(body) {
      const { code, message } = record(record(body).error);
      return [text(code), text(message)].filter(Boolean).join(': ') || null;
    },
  });

  return {
    async fetchPage(cursor) {
      const page = Number(cursor ?? '1');
      const query = `page=${page}&pageSize=${PAGE_SIZE}&showArchived=true&withTags=true`;
      const links = requireList(await http.getJson(`${base}/links?${query}`), 'Dub', 'the answer');
      const total = page === 1 ? countOf(await http.getJson(`${base}/links/count?showArchived=true`)) : null;
      const items = links.map((entry) => {
        const link = record(entry);
        const shortLink = text(link.shortLink) ?? '';
        const { host } = shortParts(shortLink, SHARED_HOSTS);
        return {
          key: text(link.id) ?? withoutScheme(shortLink),
          label: withoutScheme(shortLink),
          url: text(link.url) ?? '',
          slug: text(link.key),
          host,
          tags: list(link.tags)
            .map((tag) => text(record(tag).name))
            .filter((name): name is string => name !== null),
          title: text(link.title),
          createdAt: isoDate(link.createdAt),
          visits: countOf(link.clicks),
        };
      });
      return { items, next: links.length === PAGE_SIZE ? String(page + 1) : null, total };
    },
  };
}
