import { dayAfterStart, type FakeAnswer, FakeJsonApi, type FakeRequest, many } from './json-api.js';

/**
 * A fake of Dub's links API (dub.co/docs/api-reference): `GET /links` with `page` and `pageSize` (at most
 * 100), newest first, archived links only with `showArchived=true`, tags as `{id, name, color}` objects,
 * answering a JSON array; `GET /links/count` answers a number. `Authorization: Bearer dub_...`; errors are
 * `{error: {code, message, doc_url}}`, and a 429 carries Retry-After.
 */

export interface DubLink {
  id: string;
  domain: string;
  key: string;
  url: string;
  shortLink: string;
  archived: boolean;
  title: string | null;
  description: string | null;
  tags: { id: string; name: string; color: string }[];
  clicks: number;
  createdAt: string;
  updatedAt: string;
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limit_exceeded',
  500: 'internal_server_error',
};

export class FakeDub extends FakeJsonApi {
  apiKey = 'dub_key_1';
  links: DubLink[] = [];

  link(i: number, overrides: Partial<DubLink> = {}): DubLink {
    const domain = overrides.domain ?? 'dub.sh';
    const key = overrides.key ?? `du${i}`;
    const created = dayAfterStart(i).toISOString();
    return {
      id: `link_${String(i).padStart(6, '0')}`,
      domain,
      key,
      url: `https://example.com/dub/${i}`,
      shortLink: `https://${domain}/${key}`,
      archived: false,
      title: `Dub title ${i}`,
      description: null,
      tags: [{ id: 'tag_1', name: 'dub', color: 'blue' }],
      clicks: i * 10,
      createdAt: created,
      updatedAt: created,
      ...overrides,
    };
  }

  seed(count: number): this {
    this.links.push(...many(count, (i) => this.link(i)));
    return this;
  }

  protected errorBody(status: number, message: string): unknown {
    const code = CODES[status] ?? 'internal_server_error';
    return {
      error: {
        code,
        message,
        doc_url: `https://dub.co/docs/api-reference/errors#${code.replace(/_/g, '-')}`,
      },
    };
  }

  protected refuse(request: FakeRequest): FakeAnswer | null {
    if (request.headers.authorization === `Bearer ${this.apiKey}`) return null;
    return { status: 401, body: this.errorBody(401, 'Unauthorized: Invalid API key.') };
  }

  protected route(request: FakeRequest): FakeAnswer {
    if (request.method !== 'GET') return this.notFound();
    const archived = request.query.get('showArchived') === 'true';
    const visible = this.links.filter((link) => archived || !link.archived);
    if (request.path === '/links/count') return { status: 200, body: visible.length };
    if (request.path !== '/links') return this.notFound('The requested resource was not found.');
    const pageSize = Number(request.query.get('pageSize') ?? '100');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      return { status: 400, body: this.errorBody(400, 'pageSize: Number must be less than or equal to 100') };
    }
    const page = Math.max(1, Number(request.query.get('page') ?? '1') || 1);
    const newest = [...visible].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const withTags = request.query.get('withTags') === 'true';
    const data = newest
      .slice((page - 1) * pageSize, page * pageSize)
      .map((link) => (withTags ? link : { ...link, tags: [] }));
    return { status: 200, body: data };
  }
}
