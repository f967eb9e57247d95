import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeEngine } from '../../src/compose/engine.js';
import { parseEngineConfig } from '../../src/engine/config.js';
import type { EngineStore } from '../../src/engine/store.js';
import { engineStoreOn, type ServedEngine, serveEngine } from '../helpers/engine.js';
import { announceSkips, sqliteKind, storeKinds, type TestStore } from '../helpers/stores.js';

announceSkips();

const TOKEN = 'engine-secret-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`engine API on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: EngineStore;
    let app: ServedEngine;

    beforeAll(async () => {
      testStore = await kind.create();
      store = engineStoreOn(testStore);
      const config = parseEngineConfig({ API_TOKEN: TOKEN, BASE_URL: 'https://go.example.com' });
      app = await serveEngine(await composeEngine(config, store, pino({ level: 'silent' })));
    });
    afterAll(async () => {
      await app.close();
      await store.close();
      await testStore.dispose();
    });

    const create = (body: unknown, headers: Record<string, string> = auth) =>
      app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('creates a link with a custom slug: 201 with slug, url, shortUrl from BASE_URL and deeplink', async () => {
      const response = await create(
        { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', slug: 'rick' },
        {
          ...auth,
          host: 'attacker.example',
        },
      );
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({
        slug: 'rick',
        url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        shortUrl: 'https://go.example.com/rick',
        deeplink: 'youtube',
      });
    });

    it('deeplink is null when no platform owns the destination', async () => {
      const response = await create({ url: 'https://example.org/some/page', slug: 'plain' });
      expect(response.statusCode).toBe(201);
      expect(response.json().deeplink).toBeNull();
    });

    it('generates a random 6-character slug when none is given', async () => {
      const slugs = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const response = await create({ url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC' });
        expect(response.statusCode).toBe(201);
        const link = response.json();
        expect(link.slug).toMatch(/^[a-zA-Z0-9]{6}$/);
        expect(link.shortUrl).toBe(`https://go.example.com/${link.slug}`);
        expect(link.deeplink).toBe('spotify');
        slugs.add(link.slug);
      }
      expect(slugs.size).toBe(20);
    });

    it('reads a link back: 200 with the same Link', async () => {
      const response = await app.inject({ method: 'GET', url: '/api/links/rick', headers: auth });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        slug: 'rick',
        url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        shortUrl: 'https://go.example.com/rick',
        deeplink: 'youtube',
      });
    });

    it('an unknown slug reads as 404 Not found', async () => {
      const response = await app.inject({ method: 'GET', url: '/api/links/nope', headers: auth });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'Not found' });
    });

    it('a slug no link can carry (NUL, junk) is 404 Not found before the store is asked', async () => {
      for (const slug of ['%00', 'a%00b', 'a%0D%0Ab', 'a.b']) {
        const response = await app.inject({ method: 'GET', url: `/api/links/${slug}`, headers: auth });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ error: 'Not found' });
      }
    });

    it('a URL is stored in its WHATWG-serialized form: what create and read answer is what a visit gets', async () => {
      const created = await create({ url: 'https://EXAMPLE.com/a b?q=1#frag', slug: 'spaced' });
      expect(created.statusCode).toBe(201);
      expect(created.json().url).toBe('https://example.com/a%20b?q=1#frag');
      const read = await app.inject({ method: 'GET', url: '/api/links/spaced', headers: auth });
      expect(read.json().url).toBe('https://example.com/a%20b?q=1#frag');
      const visit = await app.inject({ method: 'GET', url: '/spaced', headers: { 'user-agent': 'curl/8' } });
      expect(visit.statusCode).toBe(301);
      expect(visit.headers.location).toBe('https://example.com/a%20b?q=1#frag');
    });

    it('a taken slug is 409 Slug already taken, and the first link is untouched', async () => {
      const response = await create({ url: 'https://example.com/other', slug: 'rick' });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({ error: 'Slug already taken' });
      const read = await app.inject({ method: 'GET', url: '/api/links/rick', headers: auth });
      expect(read.json().url).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    });

    it('slugs are case-sensitive', async () => {
      const response = await create({ url: 'https://example.com/upper', slug: 'RICK' });
      expect(response.statusCode).toBe(201);
    });

    it.each([
      ['missing url', {}],
      ['url not a string', { url: 42 }],
      ['relative url', { url: '/just/a/path' }],
      ['ftp url', { url: 'ftp://example.com/file' }],
      ['javascript url', { url: 'javascript:alert(1)' }],
      ['data url', { url: 'data:text/html,<script>alert(1)</script>' }],
      ['not a url', { url: 'not a url' }],
      ['http without host', { url: 'http://' }],
      ['a NUL', { url: 'https://example.com/a\u0000b' }],
      ['CR LF (header injection)', { url: 'https://example.com/a\r\nSet-Cookie: x=1' }],
      ['a tab', { url: 'https://example.com/a\tb' }],
      ['DEL', { url: 'https://example.com/a\u007fb' }],
      ['body is an array', [{ url: 'https://example.com' }]],
      ['body is a string', '"https://example.com"'],
      ['body is null', 'null'],
    ])('400 `url` must be a valid http(s) URL: %s', async (_name, body) => {
      const response = await create(body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: '`url` must be a valid http(s) URL' });
    });

    it.each([
      ['too long', 'a'.repeat(33)],
      ['empty', ''],
      ['a dot', 'a.b'],
      ['a slash', 'a/b'],
      ['a space', 'a b'],
      ['unicode', 'café'],
      ['a number', 12],
    ])('400 `slug` must match the pattern: %s', async (_name, slug) => {
      const response = await create({ url: 'https://example.com', slug });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: '`slug` must match [a-zA-Z0-9-_]{1,32}' });
    });

    it('accepts a 32-character slug with hyphens and underscores', async () => {
      const slug = `A-b_${'z'.repeat(28)}`;
      const response = await create({ url: 'https://example.com', slug });
      expect(response.statusCode).toBe(201);
      expect(response.json().slug).toBe(slug);
    });

    it.each([
      ['broken JSON', '{"url": '],
      ['empty body', ''],
      ['plain text', 'url=https://example.com'],
    ])('400 Invalid JSON body: %s', async (_name, payload) => {
      const response = await create(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'Invalid JSON body' });
    });

    it('400 Invalid JSON body when the request has no body at all', async () => {
      const response = await app.inject({ method: 'POST', url: '/api/links', headers: auth });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'Invalid JSON body' });
    });

    it.each([
      ['no header', {}],
      ['a wrong token', { authorization: 'Bearer wrong' }],
      ['the token with a suffix', { authorization: `Bearer ${TOKEN}x` }],
      ['a token prefix', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['basic scheme', { authorization: `Basic ${TOKEN}` }],
      ['the bare token', { authorization: TOKEN }],
    ])('401 Unauthorized on both API routes with %s', async (_name, headers) => {
      const post = await create({ url: 'https://example.com' }, headers as Record<string, string>);
      expect(post.statusCode).toBe(401);
      expect(post.json()).toEqual({ error: 'Unauthorized' });
      const get = await app.inject({ method: 'GET', url: '/api/links/rick', headers });
      expect(get.statusCode).toBe(401);
      expect(get.json()).toEqual({ error: 'Unauthorized' });
    });

    it('401 comes before body validation: a bad body without a token is still 401', async () => {
      const response = await create('{broken', {});
      expect(response.statusCode).toBe(401);
    });

    it.each(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)('405 on %s /api/links', async (method) => {
      const response = await app.inject({ method, url: '/api/links', headers: auth });
      expect(response.statusCode).toBe(405);
      expect(response.json()).toEqual({ error: 'Method not allowed' });
    });

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)('405 on %s /api/links/{slug}', async (method) => {
      const response = await app.inject({ method, url: '/api/links/rick', headers: auth, payload: {} });
      expect(response.statusCode).toBe(405);
      expect(response.json()).toEqual({ error: 'Method not allowed' });
    });

    it('the created link survives a restart of the app on the same store', async () => {
      const config = parseEngineConfig({ API_TOKEN: TOKEN, BASE_URL: 'https://go.example.com' });
      // A second store on the same database, as a restarted process opens it.
      const reopened = engineStoreOn(testStore);
      const second = await serveEngine(await composeEngine(config, reopened, pino({ level: 'silent' })));
      const response = await second.inject({ method: 'GET', url: '/api/links/rick', headers: auth });
      expect(response.statusCode).toBe(200);
      await second.close();
      await reopened.close();
    });
  });
}

describe('engine API with no API_TOKEN configured', () => {
  let testStore: TestStore;
  let store: EngineStore;
  let app: ServedEngine;
  beforeAll(async () => {
    testStore = await sqliteKind.create();
    store = engineStoreOn(testStore);
    app = await serveEngine(await composeEngine(parseEngineConfig({}), store, pino({ level: 'silent' })));
  });
  afterAll(async () => {
    await app.close();
    await store.close();
    await testStore.dispose();
  });

  it.each([
    ['no header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['any bearer', { authorization: 'Bearer anything' }],
    ['bearer undefined', { authorization: 'Bearer undefined' }],
  ])('every API call is 401 with %s', async (_name, headers) => {
    const post = await app.inject({
      method: 'POST',
      url: '/api/links',
      headers: { 'content-type': 'application/json', ...headers },
      payload: { url: 'https://example.com' },
    });
    expect(post.statusCode).toBe(401);
    expect(post.json()).toEqual({ error: 'Unauthorized' });
    const get = await app.inject({ method: 'GET', url: '/api/links/x', headers });
    expect(get.statusCode).toBe(401);
  });

  it('the BASE_URL default is http://localhost:$PORT', () => {
    expect(parseEngineConfig({ PORT: '4123' }).baseUrl).toBe('http://localhost:4123');
    expect(parseEngineConfig({}).databaseUrl).toBe('sqlite:./data/engine.db');
  });
});
