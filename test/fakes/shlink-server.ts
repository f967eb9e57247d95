import { dayAfterStart, type FakeAnswer, FakeJsonApi, type FakeRequest, many } from './json-api.js';

/**
 * A fake of Shlink's REST API v3 (shlink.io/documentation/api-docs): `GET /rest/v3/short-urls` with
 * `page`, `itemsPerPage` (default 10) and `orderBy` (`dateCreated-ASC`...), answering
 * `{shortUrls: {data, pagination}}`; short URLs carry tags, title, visitsSummary and the deprecated
 * visitsCount. `X-Api-Key` authenticates; errors are RFC 7807 problem details
 * (`application/problem+json`: type, title, detail, status).
 */

export interface ShlinkShortUrl {
  shortCode: string;
  shortUrl: string;
  longUrl: string;
  deviceLongUrls: { android: string | null; ios: string | null; desktop: string | null };
  dateCreated: string;
  visitsSummary: { total: number; nonBots: number; bots: number };
  visitsCount: number;
  tags: string[];
  meta: { validSince: string | null; validUntil: string | null; maxVisits: number | null };
  domain: string | null;
  title: string | null;
  crawlable: boolean;
  forwardQuery: boolean;
}

export class FakeShlink extends FakeJsonApi {
  apiKey = 'shlink-key-1';
  /** The domain short URLs are served on (Shlink's DEFAULT_DOMAIN). */
  defaultDomain = 's.example.test';
  shortUrls: ShlinkShortUrl[] = [];

  shortUrl(i: number, overrides: Partial<ShlinkShortUrl> = {}): ShlinkShortUrl {
    const code = overrides.shortCode ?? `sh${i}`;
    const host = overrides.domain ?? this.defaultDomain;
    return {
      shortCode: code,
      shortUrl: `https://${host}/${code}`,
      longUrl: `https://example.com/shlink/${i}`,
      deviceLongUrls: { android: null, ios: null, desktop: null },
      // Shlink writes ATOM dates with an offset.
      dateCreated: dayAfterStart(i)
        .toISOString()
        .replace(/\.\d{3}Z$/, '+00:00'),
      visitsSummary: { total: i * 3, nonBots: i * 2, bots: i },
      visitsCount: i * 3,
      tags: i % 3 === 0 ? ['three', 'shlink'] : ['shlink'],
      meta: { validSince: null, validUntil: null, maxVisits: null },
      domain: null,
      title: `Shlink title ${i}`,
      crawlable: false,
      forwardQuery: true,
      ...overrides,
    };
  }

  seed(count: number): this {
    this.shortUrls.push(...many(count, (i) => this.shortUrl(i)));
    return this;
  }

  protected override contentType(status: number): string {
    return status >= 400 ? 'application/problem+json' : 'application/json';
  }

  protected errorBody(status: number, message: string): unknown {
    const titles: Record<number, [string, string]> = {
      400: ['invalid-data', 'Invalid data'],
      401: ['invalid-api-key', 'Invalid API key'],
      404: ['not-found', 'Not found'],
      429: ['too-many-requests', 'Too many requests'],
      500: ['internal-error', 'Internal server error'],
    };
    const [type, title] = titles[status] ?? ['error', 'Error'];
    return { type: `https://shlink.io/api/error/${type}`, title, detail: message, status };
  }

  protected refuse(request: FakeRequest): FakeAnswer | null {
    const key = request.headers['x-api-key'];
    if (key === this.apiKey) return null;
    const detail =
      key === undefined
        ? 'Expected one of the following authentication headers, ["X-Api-Key"], but none were provided'
        : 'Provided API key does not exist or is invalid.';
    const body = {
      ...(this.errorBody(401, detail) as object),
      ...(key === undefined ? { title: 'Invalid authorization' } : {}),
    };
    return { status: 401, body };
  }

  protected route(request: FakeRequest): FakeAnswer {
    if (request.method !== 'GET' || request.path !== '/rest/v3/short-urls') return this.notFound();
    const page = Math.max(1, Number(request.query.get('page') ?? '1') || 1);
    const perPage = Number(request.query.get('itemsPerPage') ?? '10') || 10;
    const order = request.query.get('orderBy');
    const sorted = [...this.shortUrls];
    if (order === 'dateCreated-ASC') sorted.sort((a, b) => a.dateCreated.localeCompare(b.dateCreated));
    else sorted.sort((a, b) => b.dateCreated.localeCompare(a.dateCreated));
    const data = sorted.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: {
        shortUrls: {
          data,
          pagination: {
            currentPage: page,
            pagesCount: Math.ceil(sorted.length / perPage),
            itemsPerPage: perPage,
            itemsInCurrentPage: data.length,
            totalItems: sorted.length,
          },
        },
      },
    };
  }
}
