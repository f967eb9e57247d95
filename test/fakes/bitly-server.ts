import { dayAfterStart, type FakeAnswer, FakeJsonApi, type FakeRequest, many } from './json-api.js';

/**
 * A fake of Bitly API v4 (dev.bitly.com/api-reference): `GET /v4/user` (the default group) and
 * `GET /v4/groups/{group_guid}/bitlinks` with `size` (at most 100), `search_after` paging and
 * `pagination.next` as a full URL ('' on the last page), archived links only with `archived=on|both`.
 * OAuth bearer tokens; errors are `{message, description, resource}`; 403 FORBIDDEN for a bad token.
 */

export interface Bitlink {
  id: string;
  link: string;
  long_url: string;
  title: string | null;
  archived: boolean;
  created_at: string;
  custom_bitlinks: string[];
  tags: string[];
  deeplinks: unknown[];
  references: Record<string, string>;
}

/** Bitly writes `2021-03-04T05:06:07+0000`. */
const bitlyDate = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, '+0000');

export function bitlink(i: number, overrides: Partial<Bitlink> = {}): Bitlink {
  const keyword = `bl${i}`;
  return {
    id: `bit.ly/${keyword}`,
    link: `https://bit.ly/${keyword}`,
    long_url: `https://example.com/bitly/${i}`,
    title: `Bitly link ${i}`,
    archived: false,
    created_at: bitlyDate(dayAfterStart(i)),
    custom_bitlinks: [],
    tags: i % 2 === 0 ? ['even', 'bitly'] : ['bitly'],
    deeplinks: [],
    references: { group: 'https://api-ssl.bitly.com/v4/groups/Bg1' },
    ...overrides,
  };
}

export class FakeBitly extends FakeJsonApi {
  token = 'bitly-token-1';
  readonly groups = new Map<string, Bitlink[]>([['Bg1', []]]);
  defaultGroup = 'Bg1';

  seed(count: number, group = 'Bg1'): this {
    this.groups.set(group, [...(this.groups.get(group) ?? []), ...many(count, (i) => bitlink(i))]);
    return this;
  }

  protected errorBody(status: number, message: string): unknown {
    const names: Record<number, string> = {
      400: 'INVALID_ARG',
      403: 'FORBIDDEN',
      404: 'NOT_FOUND',
      429: 'RATE_LIMIT_EXCEEDED',
      500: 'INTERNAL_ERROR',
      503: 'TEMPORARILY_UNAVAILABLE',
    };
    return { message: names[status] ?? 'UNKNOWN_ERROR', description: message, resource: 'bitlinks' };
  }

  protected refuse(request: FakeRequest): FakeAnswer | null {
    if (request.headers.authorization === `Bearer ${this.token}`) return null;
    return { status: 403, body: this.errorBody(403, 'You are currently forbidden to access this resource.') };
  }

  protected route(request: FakeRequest): FakeAnswer {
    if (request.method === 'GET' && request.path === '/v4/user') {
      return { status: 200, body: { login: 'owner', name: 'Owner', default_group_guid: this.defaultGroup } };
    }
    const match = /^\/v4\/groups\/([^/]+)\/bitlinks$/.exec(request.path);
    if (request.method !== 'GET' || !match) return this.notFound();
    const guid = decodeURIComponent(match[1] ?? '');
    const links = this.groups.get(guid);
    if (!links)
      return {
        status: 404,
        body: { ...(this.errorBody(404, 'Group not found') as object), resource: 'groups' },
      };
    const size = Number(request.query.get('size') ?? '50');
    if (!Number.isInteger(size) || size < 1 || size > 100) {
      return { status: 400, body: this.errorBody(400, 'size must be between 1 and 100') };
    }
    const archived = request.query.get('archived') ?? 'off';
    const visible = links.filter((link) => archived === 'both' || (archived === 'on') === link.archived);
    // search_after is opaque to clients: here, the position after the last link sent.
    const after = Number(Buffer.from(request.query.get('search_after') ?? 'MA', 'base64url').toString() || 0);
    const page = visible.slice(after, after + size);
    const end = after + page.length;
    const token = Buffer.from(String(end)).toString('base64url');
    const next =
      end < visible.length
        ? `${this.origin}/v4/groups/${guid}/bitlinks?size=${size}&archived=${archived}&search_after=${token}`
        : '';
    return {
      status: 200,
      body: {
        links: page,
        pagination: { prev: '', next, size, page: 1, total: visible.length, search_after: next ? token : '' },
      },
    };
  }
}
