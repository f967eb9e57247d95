import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { announceSkips, storeKinds } from '../helpers/stores.js';

announceSkips();

const CONTROL = 'control characters are not allowed';

/**
 * The edge rule on the hosted app, route by route: control characters are 400 naming the field (prose
 * may carry tab and newline), malformed ids are 404 or a 400 naming the query parameter, and every URL
 * is stored as the WHATWG parser serializes it, so stored, echoed and served are one string.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`text at the edge on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    let cookie: string;
    const v1 = (method: InjectOptions['method'], url: string, payload?: unknown) =>
      h.v1(key, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) });

    beforeAll(async () => {
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      const { orgId } = await h.accounts.createOrganization({
        name: 'Edge',
        tier: 'legend',
        email: 'edge@example.com',
        password: 'correct horse battery',
      });
      key = (await h.accounts.mintApiKey(orgId)).apiKey;
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'edge@example.com', password: 'correct horse battery' },
      });
      cookie = String(login.headers['set-cookie']).split(';')[0] as string;
    });
    afterAll(async () => h?.close());

    it('NUL in a folder name is 400 invalid_body naming the field, with Zod-style issues', async () => {
      const response = await v1('POST', '/v1/folders', { name: 'a\u0000b' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: 'invalid_body',
        message: `name: ${CONTROL}`,
        issues: [{ code: 'custom', path: ['name'], message: CONTROL }],
      });
    });

    it.each([
      ['a tag', { url: 'https://example.com', tags: ['ok', 'a\u0001b'] }, 'tags.1'],
      ['a UTM value', { url: 'https://example.com', utm: { source: 'ig\u001b[31m' } }, 'utm.source'],
      ['a password', { url: 'https://example.com', password: 'pw\u007f' }, 'password'],
      ['the destination (CR LF)', { url: 'https://example.com/a\r\nSet-Cookie: x=1' }, 'url'],
      ['the destination (NUL in the fragment)', { url: 'https://example.com/#a\u0000' }, 'url'],
      [
        'a routing target',
        { url: 'https://example.com', routing: { ios: 'https://a.example/\tx' } },
        'routing.ios',
      ],
    ])('control characters in %s are 400 naming the field', async (_name, body, field) => {
      const response = await v1('POST', '/v1/links', body);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_body');
      expect(response.json().message).toBe(`${field}: ${CONTROL}`);
    });

    it('a name is one line, prose may carry tab and newline but never NUL', async () => {
      expect((await v1('POST', '/v1/folders', { name: 'two\nlines' })).statusCode).toBe(400);
      const link = (await v1('POST', '/v1/links', { url: 'https://example.com/prose' })).json();
      const prose = await v1('PUT', `/v1/links/${link.id}/og`, { description: 'line one\nline\ttwo\r\n' });
      expect(prose.statusCode).toBe(200);
      expect(prose.json().description).toBe('line one\nline\ttwo');
      const nul = await v1('PUT', `/v1/links/${link.id}/og`, { description: 'a\u0000' });
      expect(nul.statusCode).toBe(400);
      expect(nul.json().message).toBe(`description: ${CONTROL}`);
    });

    it('query strings: %00 is 400 invalid_query naming the parameter', async () => {
      for (const [url, name] of [
        ['/v1/links?q=%00', 'q'],
        ['/v1/links?tag=a%00b', 'tag'],
        ['/v1/analytics?tag=%01', 'tag'],
      ] as const) {
        const response = await v1('GET', url);
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toBe('invalid_query');
        expect(response.json().message).toBe(`${name}: ${CONTROL}`);
      }
    });

    it('a malformed id-valued query filter is 400 naming it', async () => {
      for (const name of ['linkId', 'folderId']) {
        const response = await v1('GET', `/v1/analytics?${name}=not-an-id`);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({
          error: 'invalid_query',
          message: `${name}: \`${name}\` must be a well-formed id`,
        });
      }
    });

    it('a path id that is not well formed is 404 on every resource, /v1 and /api alike', async () => {
      for (const path of ['links', 'folders', 'pixels', 'webhooks', 'audience']) {
        for (const id of ['%00', 'not-an-id', '1', 'a%0Ab']) {
          const response = await v1(path === 'links' ? 'GET' : 'DELETE', `/v1/${path}/${id}`);
          expect(response.statusCode, `${path}/${id}`).toBe(404);
          expect(response.json().error).toBe('not_found');
        }
      }
      for (const path of ['/api/links/%00', '/api/segments/junk', '/api/broadcasts/%00', '/api/keys/junk']) {
        const response = await h.app.inject({ method: 'GET', url: path, headers: { cookie } });
        expect([404, 405]).toContain(response.statusCode);
      }
    });

    it('a NUL in the dashboard body is refused the same way', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/folders',
        headers: { cookie, origin: BASE_URL },
        payload: { name: '\u0000' },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(`name: ${CONTROL}`);
    });

    it('the capture form refuses a control character silently: 204, nothing stored', async () => {
      await v1('POST', '/v1/links', {
        url: 'https://example.com/capture',
        slug: 'promo',
        captureEmails: true,
      });
      const capture = (email: string) =>
        h.app.inject({
          method: 'POST',
          url: '/api/public/capture',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ slug: 'promo', email, consent: true, website: '' }),
        });
      const refused = await capture('fan\u0000@example.com');
      expect(refused.statusCode).toBe(204);
      expect((await capture('fan@example.com')).statusCode).toBe(204);
      const emails = (await v1('GET', '/v1/audience')).json().contacts.map((c: { email: string }) => c.email);
      expect(emails).toEqual(['fan@example.com']);
    });

    it('the password form is covered too: a NUL in the form body is 400', async () => {
      await v1('POST', '/v1/links', {
        url: 'https://example.com/secret',
        slug: 'locked',
        password: 'hunter22',
      });
      const response = await h.app.inject({
        method: 'POST',
        url: '/locked',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'password=a%00b',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(`password: ${CONTROL}`);
    });

    it('a header we read holding a control character is refused before any lookup', async () => {
      const response = await h.app.inject({
        method: 'GET',
        url: '/v1/links',
        headers: { authorization: `Bearer ${key}\u0000` },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(`authorization: ${CONTROL}`);
      // Every header the app reads, on a public route too (issue #30): never a lookup with NUL in it.
      for (const name of ['cookie', 'origin', 'x-forwarded-for', 'host']) {
        const refused = await h.app.inject({
          method: 'GET',
          url: '/api/public/stats/nobody',
          headers: { [name]: 'a\u0000b' },
        });
        expect(refused.statusCode, name).toBe(400);
        expect(refused.json().message).toBe(`${name}: ${CONTROL}`);
      }
    });

    it('NUL in the path of a visit, a public page or an unsubscribe link is a 404, never a lookup', async () => {
      for (const url of ['/a%00b', '/_fallback/a%00b', '/a%00b+', '/api/public/bio/a%00b', '/u/a%00b']) {
        for (const method of ['GET', 'POST'] as const) {
          const response = await h.app.inject({ method, url });
          expect(response.statusCode, `${method} ${url}`).toBeLessThan(500);
          expect([400, 404, 405], `${method} ${url}`).toContain(response.statusCode);
        }
      }
    });

    it('a destination is stored, echoed and served in its WHATWG-serialized form', async () => {
      const created = await v1('POST', '/v1/links', {
        url: 'https://EXAMPLE.com/a b?q=ü',
        slug: 'spaced',
        routing: { android: 'HTTPS://Android.Example' },
        sched: [{ from: 1, url: 'https://SCHED.example/x y' }],
      });
      expect(created.statusCode).toBe(201);
      const link = created.json();
      expect(link.destination).toBe('https://example.com/a%20b?q=%C3%BC');
      expect(link.routing).toEqual({ android: 'https://android.example/' });
      expect(link.sched).toEqual([{ from: 1, url: 'https://sched.example/x%20y' }]);
      expect((await v1('GET', `/v1/links/${link.id}`)).json().destination).toBe(link.destination);
      const ab = await v1('PATCH', `/v1/links/${link.id}`, {
        routing: null,
        ab: [
          { u: 'https://A.example', w: 1 },
          { u: 'https://b.example/é', w: 1 },
        ],
      });
      expect(ab.json().ab).toEqual([
        { u: 'https://a.example/', w: 1 },
        { u: 'https://b.example/%C3%A9', w: 1 },
      ]);
      const plain = (
        await v1('POST', '/v1/links', { url: 'https://EXAMPLE.com/a b', slug: 'served' })
      ).json();
      const visit = await h.app.inject({
        method: 'GET',
        url: '/served',
        headers: { 'user-agent': 'curl/8' },
      });
      expect(visit.headers.location).toBe('https://example.com/a%20b');
      expect(plain.destination).toBe(visit.headers.location);
    });

    it('the OG image, a webhook endpoint and the bio avatar are stored serialized too', async () => {
      const link = (await v1('POST', '/v1/links', { url: 'https://example.com/og' })).json();
      const og = await v1('PUT', `/v1/links/${link.id}/og`, { image: 'https://IMG.example/a b.png' });
      expect(og.json().image).toBe('https://img.example/a%20b.png');
      const hook = await v1('POST', '/v1/webhooks', {
        url: 'https://127.0.0.1:9/Hook Path',
        events: ['link.created'],
      });
      expect(hook.statusCode).toBe(201);
      expect(hook.json().url).toBe('https://127.0.0.1:9/Hook%20Path');
      const badHook = await v1('POST', '/v1/webhooks', {
        url: 'https://127.0.0.1:9/\r\nx',
        events: ['link.created'],
      });
      expect(badHook.statusCode).toBe(400);
      const bio = await v1('PUT', '/v1/bio', {
        handle: 'edgecase',
        title: 'Edge',
        avatarUrl: 'https://CDN.example/me.png',
      });
      expect(bio.statusCode).toBe(200);
      expect(bio.json().avatarUrl ?? bio.json().page?.avatarUrl).toBe('https://cdn.example/me.png');
    });
  });
}
