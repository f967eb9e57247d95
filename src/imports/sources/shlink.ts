import { createSourceHttp, type SourceHttpDeps } from './http.js';
import {
  countOf,
  type ImportSource,
  isoDate,
  malformed,
  origin,
  record,
  requireList,
  requireRecord,
  shortParts,
  stringList,
  text,
  withoutScheme,
} from './items.js';

/**
 * Shlink REST API v3: `GET /rest/v3/short-urls?page=N&itemsPerPage=100`, oldest first so a link created
 * meanwhile lands on a later page instead of shifting the pages. Tags, titles and visit counts come with
 * each short URL. Errors are RFC 7807 problem details (`title`, `detail`).
 */

const PAGE_SIZE = 100;

export interface ShlinkParams {
  baseUrl: string;
  apiKey: string;
}

export function openShlink(params: ShlinkParams, deps: SourceHttpDeps): ImportSource {
  const base = origin(params.baseUrl);
  const http = createSourceHttp(deps, {
    name: 'Shlink',
    headers: { 'x-api-key': params.apiKey },
    describe(body) {
      const { title, detail } = record(body);
      return [text(title), text(detail)].filter(Boolean).join(': ') || null;
    },
  });

  return {
    async fetchPage(cursor) {
      const page = Number(cursor ?? '1');
      const url = `${base}/rest/v3/short-urls?page=${page}&itemsPerPage=${PAGE_SIZE}&orderBy=dateCreated-ASC`;
      const body = requireRecord(await http.getJson(url), 'Shlink', 'the answer');
      const shortUrls = requireRecord(body.shortUrls, 'Shlink', '`shortUrls`');
      const pagination = requireRecord(shortUrls.pagination, 'Shlink', '`shortUrls.pagination`');
      const items = requireList(shortUrls.data, 'Shlink', '`shortUrls.data`').map((entry) => {
        const link = record(entry);
        const shortUrl = text(link.shortUrl) ?? '';
        const { host } = shortParts(shortUrl, new Set());
        const visits = countOf(record(link.visitsSummary).total) ?? countOf(link.visitsCount);
        return {
          key: withoutScheme(shortUrl),
          label: withoutScheme(shortUrl),
          url: text(link.longUrl) ?? '',
          slug: text(link.shortCode),
          host,
          tags: stringList(link.tags),
          title: text(link.title),
          createdAt: isoDate(link.dateCreated),
          visits,
        };
      });
      const pages = countOf(pagination.pagesCount);
      if (pages === null) throw malformed('Shlink', '`pagesCount` is not a count', pagination.pagesCount);
      return {
        items,
        next: page < pages ? String(page + 1) : null,
        total: countOf(pagination.totalItems),
      };
    },
  };
}
