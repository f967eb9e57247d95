import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`/v1 authentication and rate limits on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => h?.close());

    it('GET /v1/me answers orgId, tier, features and the rate limit', async () => {
      const { orgId, apiKey } = await h.org('legend');
      const response = await h.v1(apiKey, { method: 'GET', url: '/v1/me' });
      expect(response.statusCode).toBe(200);
      const me = response.json();
      expect(me.orgId).toBe(orgId);
      expect(me.tier).toBe('legend');
      expect(Object.keys(me.features)).toHaveLength(26);
      expect(me.rateLimit).toEqual({ limit: 120, windowSeconds: 60 });
      expect(response.headers['x-ratelimit-limit']).toBe('120');
      expect(response.headers['x-ratelimit-remaining']).toBe('119');
      expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    });

    it.each([
      ['no header', undefined, 'Bearer realm="linkhop"'],
      ['a malformed key', 'Bearer not-a-key', 'Bearer realm="linkhop", error="invalid_token"'],
      ['an unknown key', `Bearer svc_${'A'.repeat(43)}`, 'Bearer realm="linkhop", error="invalid_token"'],
      ['a basic scheme', `Basic svc_${'A'.repeat(43)}`, 'Bearer realm="linkhop"'],
    ])(
      '401 with %s, with the error body, the rate headers and a Bearer challenge',
      async (_name, authorization, challenge) => {
        const response = await h.app.inject({
          method: 'GET',
          url: '/v1/me',
          headers: authorization ? { authorization } : {},
        });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
        expect(response.headers['x-ratelimit-limit']).toBe('120');
        expect(response.headers['www-authenticate']).toBe(challenge);
      },
    );

    it('a revoked key is refused on the very next request', async () => {
      const { apiKey, keyId } = await h.org('legend');
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(200);
      expect(await h.accounts.revokeApiKey(keyId)).toBe(true);
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(401);
    });

    it('a plan without the API is 401, and so is a key after a downgrade', async () => {
      const hero = await h.org('hero');
      const refused = await h.v1(hero.apiKey, { method: 'GET', url: '/v1/me' });
      expect(refused.statusCode).toBe(401);
      // The key is genuine: the challenge names no invalid token.
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="linkhop"');
      const legend = await h.org('legend');
      await h.accounts.setTier(legend.orgId, 'hero');
      expect((await h.v1(legend.apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(401);
    });

    it('cookies are never read on /v1', async () => {
      const { apiKey } = await h.org('legend');
      const response = await h.app.inject({
        method: 'GET',
        url: '/v1/me',
        headers: { cookie: `session=${apiKey}; key=${apiKey}` },
      });
      expect(response.statusCode).toBe(401);
    });

    it('the 121st request in a window is 429 with Retry-After and retryAfter', async () => {
      const { apiKey } = await h.org('legend');
      for (let i = 0; i < 120; i++) {
        const ok = await h.v1(apiKey, { method: 'GET', url: '/v1/me' });
        expect(ok.statusCode).toBe(200);
      }
      const limited = await h.v1(apiKey, { method: 'GET', url: '/v1/me' });
      expect(limited.statusCode).toBe(429);
      const body = limited.json();
      expect(body.error).toBe('rate_limited');
      expect(body.retryAfter).toBeGreaterThan(0);
      expect(limited.headers['retry-after']).toBe(String(body.retryAfter));
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      // Another key has its own window.
      const other = await h.org('legend');
      expect((await h.v1(other.apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(200);
    });

    it('serves the OpenAPI 3.1 document, version 1.0.0, and the docs page', async () => {
      const response = await h.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(response.statusCode).toBe(200);
      const doc = response.json();
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(doc.info.version).toBe('1.0.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/v1/me', '/v1/links', '/v1/links/{id}', '/v1/links/{id}/archive']),
      );
      expect(doc.paths['/v1/links'].post.requestBody).toBeDefined();
      // Bulk items are validated one by one, yet documented as create bodies (not as `{}`).
      const bulk = doc.paths['/v1/links/bulk'].post.requestBody.content['application/json'].schema;
      expect(bulk.properties.links.items.properties.url).toMatchObject({ type: 'string' });
      expect(bulk.properties.links.items.required).toEqual(['url']);
      const docs = await h.app.inject({ method: 'GET', url: '/docs' });
      expect([200, 302]).toContain(docs.statusCode);
    });
  });
}
