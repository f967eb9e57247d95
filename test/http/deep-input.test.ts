import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { announceSkips, storeKinds } from '../helpers/stores.js';

announceSkips();

const TOO_DEEP = { error: 'too_deep', message: 'The request body nests deeper than 64 levels' };

/** JSON text of `levels` arrays one inside the other around `inner`. */
const arrays = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
/** JSON text of `levels` objects `{"a": {"a": ...}}` around `inner`. */
const objects = (levels: number, inner = '1') => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;

/**
 * Deeply nested JSON (issue #30): the control-character check recursed until RangeError, a 500 on every
 * JSON route, public ones included. A body nested past 64 levels is now 400 too_deep before anything walks
 * it; up to 64 it goes on to validation. JSON.parse and secure-json-parse walk without recursion, and Zod
 * never sees a body the depth check refused.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`deeply nested bodies on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    let cookie: string;

    beforeAll(async () => {
      h = await startHosted(kind);
      const { orgId } = await h.accounts.createOrganization({
        name: 'Deep',
        tier: 'legend',
        email: 'deep@example.com',
        password: 'correct horse battery',
      });
      key = (await h.accounts.mintApiKey(orgId)).apiKey;
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'deep@example.com', password: 'correct horse battery' },
      });
      expect(login.statusCode).toBe(200);
      cookie = String(login.headers['set-cookie']).split(';')[0] as string;
    });
    afterAll(async () => h?.close());

    /** A JSON body sent as a public call, a key's call or a session's call, by where `url` is. */
    function send(method: InjectOptions['method'], url: string, payload: string) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (url.startsWith('/v1/')) headers.authorization = `Bearer ${key}`;
      if (url.startsWith('/api/')) Object.assign(headers, { origin: BASE_URL, cookie });
      return h.app.inject({ method, url, headers, payload });
    }

    const bodies = (levels: number): [string, string][] => [
      ['arrays', arrays(levels)],
      ['objects', objects(levels)],
      ['inside a field', `{"email":"deep@example.com","password":${arrays(levels, '"x"')}}`],
      ['in an unknown key', `{"url":"https://example.com","extra":${objects(levels)}}`],
      ['with NUL at the bottom', objects(levels, '"\\u0000"')],
    ];

    for (const levels of [5_000, 100_000]) {
      it(`${levels.toLocaleString('en')} levels: 400 too_deep on public, key and session routes alike`, async () => {
        const routes: [InjectOptions['method'], string][] = [
          ['POST', '/api/auth/login'],
          ['POST', '/api/auth/signup'],
          ['POST', '/v1/links'],
          ['PATCH', `/v1/links/${crypto.randomUUID()}`],
          ['POST', '/v1/imports'],
          ['POST', '/api/links'],
          ['PUT', '/api/bio'],
        ];
        const wrong: string[] = [];
        for (const [method, url] of routes)
          for (const [shape, body] of bodies(levels)) {
            const response = await send(method, url, body);
            if (response.statusCode !== 400 || response.json().error !== 'too_deep')
              wrong.push(
                `${method} ${url} [${shape}]: ${response.statusCode} ${response.body.slice(0, 120)}`,
              );
            else expect(response.json()).toEqual(TOO_DEEP);
          }
        expect(wrong).toEqual([]);
      });
    }

    it('64 levels go on to validation; 65 are too deep', async () => {
      for (const build of [arrays, objects]) {
        const fine = await send('POST', '/v1/links', `{"url":"https://example.com","x":${build(63)}}`);
        expect(fine.statusCode).toBe(400);
        expect(fine.json().error).toBe('invalid_body');
        const deep = await send('POST', '/v1/links', `{"url":"https://example.com","x":${build(64)}}`);
        expect(deep.statusCode).toBe(400);
        expect(deep.json()).toEqual(TOO_DEEP);
      }
      const created = await send('POST', '/v1/links', '{"url":"https://example.com/shallow"}');
      expect(created.statusCode).toBe(201);
    });

    it('without credentials a deep /v1 body is 401 first: the key check reads no body', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/v1/links',
        headers: { 'content-type': 'application/json' },
        payload: arrays(100_000),
      });
      expect(response.statusCode).toBe(401);
    });

    it('the capture form, which walks its own bodies, answers 204 to any depth', async () => {
      for (const body of [arrays(100_000), objects(100_000, '"\\u0000"')]) {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/public/capture',
          headers: { 'content-type': 'application/json' },
          payload: body,
        });
        expect(response.statusCode).toBe(204);
      }
    });

    it('the tap beacon answers 204 to any depth', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/public/tap',
        headers: { 'content-type': 'text/plain' },
        payload: objects(800),
      });
      expect(response.statusCode).toBe(204);
    });
  });
}
