import { dayAfterStart, type FakeAnswer, FakeJsonApi, type FakeRequest, many } from './json-api.js';

/**
 * A fake of Kutt's API v2 (docs/api/api.js in thedevs-network/kutt): `GET /api/v2/links` with `limit`
 * (default 10, at most 50) and `skip`, newest first, answering `{total, limit, skip, data}`. A link has
 * `id` (uuid), `address`, `target`, `description`, `link` (the short URL), `visit_count`, `created_at`.
 * `X-API-KEY` authenticates; errors are `{error}`.
 */

export interface KuttLink {
  id: string;
  address: string;
  banned: boolean;
  created_at: string;
  updated_at: string;
  link: string;
  password: boolean;
  target: string;
  description: string | null;
  expire_in: string | null;
  visit_count: number;
}

export class FakeKutt extends FakeJsonApi {
  apiKey = 'kutt-key-1';
  /** The Kutt install's DEFAULT_DOMAIN. */
  domain = 'k.example.test';
  links: KuttLink[] = [];

  link(i: number, overrides: Partial<KuttLink> = {}): KuttLink {
    const address = overrides.address ?? `ku${i}`;
    const created = dayAfterStart(i).toISOString();
    return {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      address,
      banned: false,
      created_at: created,
      updated_at: created,
      link: `https://${this.domain}/${address}`,
      password: false,
      target: `https://example.com/kutt/${i}`,
      description: i % 2 === 0 ? `Kutt description ${i}` : null,
      expire_in: null,
      visit_count: i,
      ...overrides,
    };
  }

  seed(count: number): this {
    this.links.push(...many(count, (i) => this.link(i)));
    return this;
  }

  protected errorBody(_status: number, message: string): unknown {
    return { error: message };
  }

  protected refuse(request: FakeRequest): FakeAnswer | null {
    if (request.headers['x-api-key'] === this.apiKey) return null;
    return { status: 401, body: this.errorBody(401, 'Unauthorized.') };
  }

  protected route(request: FakeRequest): FakeAnswer {
    if (request.method !== 'GET' || request.path !== '/api/v2/links') return this.notFound('Not found.');
    const limit = Math.min(50, Math.max(1, Number(request.query.get('limit') ?? '10') || 10));
    const skip = Math.max(0, Number(request.query.get('skip') ?? '0') || 0);
    const newest = [...this.links].sort((a, b) => b.created_at.localeCompare(a.created_at));
    return {
      status: 200,
      body: { total: newest.length, limit, skip, data: newest.slice(skip, skip + limit) },
    };
  }
}
