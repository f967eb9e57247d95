import { createSourceHttp, SourceError, type SourceHttpDeps } from './http.js';
import {
  type ImportSource,
  isoDate,
  nextPageUrl,
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
 * Bitly API v4: `GET /v4/groups/{group_guid}/bitlinks`, 100 a page, archived ones too (they still
 * redirect), following `pagination.next` (a search_after URL). Without a group GUID, the token's default
 * group (`GET /v4/user`). A branded short link (`custom_bitlinks`) is preferred over the bit.ly one.
 */

export const BITLY_API = 'https://api-ssl.bitly.com';
const SHARED_HOSTS = new Set(['bit.ly', 'j.mp', 'bitly.com']);

export interface BitlyParams {
  token: string;
  groupGuid?: string | undefined;
  baseUrl?: string | undefined;
}

export function openBitly(params: BitlyParams, deps: SourceHttpDeps): ImportSource {
  const base = origin(params.baseUrl ?? BITLY_API);
  const http = createSourceHttp(deps, {
    name: 'Bitly',
    headers: { authorization: `Bearer ${params.token}` },
    describe(body) {
      const { message, description } = record(body);
      return [text(message), text(description)].filter(Boolean).join(': ') || null;
    },
  });

  async function firstPage(): Promise<string> {
    const guid = params.groupGuid ?? text(record(await http.getJson(`${base}/v4/user`)).default_group_guid);
    if (!guid) throw new SourceError('Bitly did not name a default group for this token: give groupGuid');
    return `${base}/v4/groups/${encodeURIComponent(guid)}/bitlinks?size=100&archived=both`;
  }

  return {
    async fetchPage(cursor) {
      const url = cursor ?? (await firstPage());
      const body = requireRecord(await http.getJson(url), 'Bitly', 'the answer');
      const pagination = requireRecord(body.pagination, 'Bitly', '`pagination`');
      // The token goes wherever `next` points: only ever to the API it came from.
      const next = nextPageUrl(pagination.next, base, 'Bitly', '`pagination.next`');
      const items = requireList(body.links, 'Bitly', '`links`').map((entry) => {
        const link = record(entry);
        const id = text(link.id) ?? '';
        const short = stringList(link.custom_bitlinks)[0] ?? text(link.link) ?? id;
        const { host, slug } = shortParts(short, SHARED_HOSTS);
        return {
          key: id || withoutScheme(short),
          label: withoutScheme(short),
          url: text(link.long_url) ?? '',
          slug,
          host,
          tags: stringList(link.tags),
          title: text(link.title),
          createdAt: isoDate(link.created_at),
          visits: null,
        };
      });
      const total = pagination.total;
      return { items, next, total: typeof total === 'number' ? total : null };
    },
  };
}
