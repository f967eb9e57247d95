import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedDomain } from '../helpers/domains.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

const LINK_KEYS = [
  'ab',
  'abAutoPromote',
  'archived',
  'branded',
  'captureEmails',
  'createdAt',
  'destination',
  'expired',
  'expiredUrl',
  'expiresAt',
  'fallbackUrl',
  'folderId',
  'hasPassword',
  'health',
  'hostname',
  'id',
  'maxClicks',
  'pixelIds',
  'platformKey',
  'publicStats',
  'readOnly',
  'routing',
  'sched',
  'shortUrl',
  'slug',
  'tags',
  'updatedAt',
  'utm',
];

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`/v1/links on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    let otherKey: string;
    beforeAll(async () => {
      h = await startHosted(kind);
      const org = await h.org('legend');
      key = org.apiKey;
      otherKey = (await h.org('legend')).apiKey;
      await addVerifiedDomain(h.testStore.store, org.orgId, 'go.brand-a.example');
      await addVerifiedDomain(h.testStore.store, org.orgId, 'go.brand-b.example');
    });
    afterAll(async () => h?.close());

    const create = (body: unknown, apiKey = key) =>
      h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: body as object });
    const patch = (id: string, body: unknown, apiKey = key) =>
      h.v1(apiKey, { method: 'PATCH', url: `/v1/links/${id}`, payload: body as object });

    it('creates a link: 201 with every field present and a generated 7-character slug', async () => {
      const response = await create({ url: 'https://www.youtube.com/watch?v=abc' });
      expect(response.statusCode).toBe(201);
      const link = response.json();
      expect(Object.keys(link).sort()).toEqual(LINK_KEYS);
      expect(link.slug).toMatch(/^[a-zA-Z0-9]{7}$/);
      expect(link.shortUrl).toBe(`${BASE_URL}/${link.slug}`);
      expect(link).toMatchObject({
        destination: 'https://www.youtube.com/watch?v=abc',
        platformKey: 'youtube',
        branded: false,
        readOnly: false,
        hostname: null,
        utm: null,
        routing: null,
        ab: null,
        sched: null,
        hasPassword: false,
        tags: [],
        folderId: null,
        pixelIds: [],
        captureEmails: false,
      });
    });

    it('reads a link back, and another organization gets 404 on read, edit and archive', async () => {
      const link = (await create({ url: 'https://example.com/mine' })).json();
      expect((await h.v1(key, { method: 'GET', url: `/v1/links/${link.id}` })).json()).toEqual(link);
      for (const options of [
        { method: 'GET' as const, url: `/v1/links/${link.id}` },
        { method: 'PATCH' as const, url: `/v1/links/${link.id}`, payload: { tags: ['x'] } },
        { method: 'POST' as const, url: `/v1/links/${link.id}/archive` },
      ]) {
        const response = await h.v1(otherKey, options);
        expect(response.statusCode).toBe(404);
        expect(response.json().error).toBe('not_found');
      }
    });

    it('a custom slug is 409 slug_taken the second time; reserved slugs are refused', async () => {
      expect((await create({ url: 'https://example.com', slug: 'Promo_1' })).statusCode).toBe(201);
      const again = await create({ url: 'https://example.com', slug: 'Promo_1' }, otherKey);
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toBe('slug_taken');
      expect((await create({ url: 'https://example.com', slug: 'promo_1' })).statusCode).toBe(201);
      for (const slug of ['api', 'V1', 'docs', 'health', '_private', 'a.b', 'x'.repeat(33)]) {
        const response = await create({ url: 'https://example.com', slug });
        expect(response.statusCode, slug).toBe(400);
        expect(response.json().error).toBe('invalid_body');
      }
    });

    it('the same slug may live on different hostnames', async () => {
      const a = await create({
        url: 'https://example.com/a',
        slug: 'shared',
        hostname: 'go.brand-a.example',
      });
      const b = await create({
        url: 'https://example.com/b',
        slug: 'shared',
        hostname: 'Go.Brand-B.example',
      });
      expect(a.statusCode).toBe(201);
      expect(b.statusCode).toBe(201);
      expect(b.json().hostname).toBe('go.brand-b.example');
      expect(b.json().shortUrl).toBe('https://go.brand-b.example/shared');
    });

    it.each([
      ['no url', {}, 'url'],
      ['an ftp url', { url: 'ftp://example.com' }, 'url'],
      ['an unknown field', { url: 'https://example.com', colour: 'red' }, ''],
      ['one A/B variant', { url: 'https://example.com', ab: [{ u: 'https://a.example', w: 1 }] }, 'ab'],
      [
        'five A/B variants',
        { url: 'https://example.com', ab: Array(5).fill({ u: 'https://a.example', w: 1 }) },
        'ab',
      ],
      [
        'a zero weight',
        {
          url: 'https://example.com',
          ab: [
            { u: 'https://a.example', w: 0 },
            { u: 'https://b.example', w: 1 },
          ],
        },
        'ab',
      ],
      [
        '11 schedule entries',
        {
          url: 'https://example.com',
          sched: Array.from({ length: 11 }, (_, i) => ({ from: i, url: 'https://s.example' })),
        },
        'sched',
      ],
      [
        'a fractional from',
        { url: 'https://example.com', sched: [{ from: 1.5, url: 'https://s.example' }] },
        'sched',
      ],
      ['a 201-character UTM value', { url: 'https://example.com', utm: { source: 'x'.repeat(201) } }, 'utm'],
      ['an unknown UTM key', { url: 'https://example.com', utm: { cmpgn: 'x' } }, 'utm'],
      [
        'a lower-case geo key',
        { url: 'https://example.com', routing: { geo: { us: 'https://us.example' } } },
        'routing',
      ],
      [
        'a geo key that is no country',
        { url: 'https://example.com', routing: { geo: { XX: 'https://us.example' } } },
        'routing',
      ],
      [
        'a routed URL over 4096 characters',
        { url: 'https://example.com', routing: { ios: `https://e.example/${'a'.repeat(4096)}` } },
        'routing',
      ],
      ['a folderId that is no uuid', { url: 'https://example.com', folderId: 'nope' }, 'folderId'],
      ['a bad hostname', { url: 'https://example.com', hostname: 'not a host' }, 'hostname'],
    ])('400 invalid_body with Zod issues: %s', async (_name, body, path) => {
      const response = await create(body);
      expect(response.statusCode).toBe(400);
      const error = response.json();
      expect(error.error).toBe('invalid_body');
      expect(error.message).toEqual(expect.any(String));
      expect(error.issues.length).toBeGreaterThan(0);
      if (path) expect(error.issues[0].path[0]).toBe(path);
    });

    it('uses the exact messages for A/B and schedule URLs', async () => {
      const ab = await create({
        url: 'https://example.com',
        ab: [
          { u: 'javascript:alert(1)', w: 1 },
          { u: 'https://b.example', w: 1 },
        ],
      });
      expect(ab.json().issues[0].message).toBe('Every A/B variant must be a valid http(s) URL');
      expect(ab.json().message).toContain('Every A/B variant must be a valid http(s) URL');
      const sched = await create({
        url: 'https://example.com',
        sched: [{ from: 1, url: 'http://insecure.example' }],
      });
      expect(sched.json().issues[0].message).toBe('Every scheduled destination must be an https:// URL');
    });

    it('ab and routing together are ab_routing_conflict, on create and on the effective values of a PATCH', async () => {
      const ab = [
        { u: 'https://a.example/', w: 1 },
        { u: 'https://b.example/', w: 1 },
      ];
      const both = await create({ url: 'https://example.com', ab, routing: { ios: 'https://ios.example' } });
      expect(both.statusCode).toBe(400);
      expect(both.json().error).toBe('ab_routing_conflict');
      const routed = (
        await create({ url: 'https://example.com', routing: { ios: 'https://ios.example' } })
      ).json();
      const conflict = await patch(routed.id, { ab });
      expect(conflict.statusCode).toBe(400);
      expect(conflict.json().error).toBe('ab_routing_conflict');
      const swapped = await patch(routed.id, { ab, routing: null });
      expect(swapped.statusCode).toBe(200);
      expect(swapped.json().routing).toBeNull();
      expect(swapped.json().ab).toEqual(ab);
    });

    it('PATCH: null clears, arrays and objects replace wholesale, the schedule is stored sorted and deduplicated', async () => {
      const link = (
        await create({
          url: 'https://example.com',
          tags: ['a', 'b'],
          utm: { source: 'ig', medium: 'bio' },
          password: 'hunter22',
        })
      ).json();
      expect(link.hasPassword).toBe(true);
      expect(JSON.stringify(link)).not.toContain('hunter22');
      const edited = await patch(link.id, {
        tags: ['c'],
        utm: { campaign: 'bf' },
        password: null,
        sched: [
          { from: 300, url: 'https://c.example' },
          { from: 100, url: 'https://a.example' },
          { from: 300, url: 'https://d.example' },
        ],
      });
      expect(edited.statusCode).toBe(200);
      expect(edited.json()).toMatchObject({
        tags: ['c'],
        utm: { campaign: 'bf' },
        hasPassword: false,
        // Stored in the WHATWG-serialized form, as served.
        sched: [
          { from: 100, url: 'https://a.example/' },
          { from: 300, url: 'https://d.example/' },
        ],
      });
      const cleared = await patch(link.id, { tags: null, utm: null, sched: null });
      expect(cleared.json()).toMatchObject({ tags: [], utm: null, sched: null });
      expect(cleared.json().updatedAt >= link.updatedAt).toBe(true);
    });

    it('PATCH url recomputes the platform', async () => {
      const link = (await create({ url: 'https://example.com' })).json();
      const edited = await patch(link.id, { url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC' });
      expect(edited.json().platformKey).toBe('spotify');
    });

    it('lists live links with limit and offset; limit over 200 is 400; archived links leave the list', async () => {
      const h2 = (await h.org('legend')).apiKey;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create({ url: `https://example.com/${i}` }, h2)).json().id);
      const all = await h.v1(h2, { method: 'GET', url: '/v1/links' });
      expect(all.json().links).toHaveLength(5);
      const page1 = (await h.v1(h2, { method: 'GET', url: '/v1/links?limit=2' })).json().links;
      const page2 = (await h.v1(h2, { method: 'GET', url: '/v1/links?limit=2&offset=2' })).json().links;
      const page3 = (await h.v1(h2, { method: 'GET', url: '/v1/links?limit=2&offset=4' })).json().links;
      expect([...page1, ...page2, ...page3].map((link: { id: string }) => link.id).sort()).toEqual(
        [...ids].sort(),
      );
      expect(page3).toHaveLength(1);
      const tooMany = await h.v1(h2, { method: 'GET', url: '/v1/links?limit=201' });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().error).toBe('invalid_query');
      const archived = await h.v1(h2, { method: 'POST', url: `/v1/links/${ids[0]}/archive` });
      expect(archived.statusCode).toBe(200);
      expect(archived.json()).toEqual({ archived: true, note: expect.any(String) });
      expect((await h.v1(h2, { method: 'GET', url: '/v1/links' })).json().links).toHaveLength(4);
    });

    it('bulk create answers each item with its Link or its error, in order', async () => {
      const response = await h.v1(key, {
        method: 'POST',
        url: '/v1/links/bulk',
        payload: {
          links: [
            { url: 'https://example.com/bulk-1', slug: 'bulk-one' },
            { url: 'not a url' },
            { url: 'https://example.com/bulk-1b', slug: 'bulk-one' },
            {
              url: 'https://example.com/bulk-2',
              ab: [
                { u: 'https://a.example', w: 1 },
                { u: 'https://b.example', w: 1 },
              ],
              routing: { ios: 'https://i.example' },
            },
            { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
          ],
        },
      });
      expect(response.statusCode).toBe(200);
      const { results } = response.json();
      expect(results).toHaveLength(5);
      expect(results[0].slug).toBe('bulk-one');
      expect(results[1]).toMatchObject({
        error: 'invalid_body',
        issues: [expect.objectContaining({ path: ['url'] })],
      });
      expect(results[2]).toMatchObject({ error: 'slug_taken' });
      expect(results[3]).toMatchObject({ error: 'ab_routing_conflict' });
      expect(results[4]).toMatchObject({ platformKey: 'youtube' });
      expect((await h.v1(key, { method: 'GET', url: `/v1/links/${results[4].id}` })).statusCode).toBe(200);
    });

    it('bulk create takes 1 to 100 items', async () => {
      const none = await h.v1(key, { method: 'POST', url: '/v1/links/bulk', payload: { links: [] } });
      expect(none.statusCode).toBe(400);
      const tooMany = await h.v1(key, {
        method: 'POST',
        url: '/v1/links/bulk',
        payload: { links: Array.from({ length: 101 }, (_, i) => ({ url: `https://example.com/${i}` })) },
      });
      expect(tooMany.statusCode).toBe(400);
    });

    it('a body that is not JSON is a 400 error body, never a stack trace', async () => {
      const response = await h.v1(key, {
        method: 'POST',
        url: '/v1/links',
        headers: { 'content-type': 'application/json' },
        payload: '{"url": ',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_json', message: expect.any(String) });
    });
  });
}
