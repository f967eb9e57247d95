import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/** GET /v1/links and /api/links: `q`, `tag` and `folderId` filter in SQL, combine, and page. */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`link list filters on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    let otherKey: string;
    let folderA: string;
    let folderB: string;
    const ids: Record<string, string> = {};

    const create = async (name: string, body: Record<string, unknown>, apiKey = key) => {
      const response = await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: body });
      expect(response.statusCode).toBe(201);
      ids[name] = response.json().id;
    };
    const list = async (query: string, apiKey = key) => {
      const response = await h.v1(apiKey, { method: 'GET', url: `/v1/links?${query}` });
      expect(response.statusCode).toBe(200);
      const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
      return (response.json().links as { id: string }[]).map((link) => names[link.id] ?? link.id);
    };

    beforeAll(async () => {
      h = await startHosted(kind);
      key = (await h.org('legend')).apiKey;
      otherKey = (await h.org('legend')).apiKey;
      const folder = async (name: string) =>
        (await h.v1(key, { method: 'POST', url: '/v1/folders', payload: { name } })).json().id as string;
      folderA = await folder('Campaigns');
      folderB = await folder('Evergreen');
      // Created in this order: lists are newest first.
      await create('yt', {
        url: 'https://www.YouTube.com/watch?v=Launch',
        slug: 'Spring-Launch',
        tags: ['promo', 'video'],
        folderId: folderA,
      });
      await create('spotify', {
        url: 'https://open.spotify.com/track/abc',
        slug: 'song_1',
        tags: ['promo'],
        folderId: folderB,
      });
      await create('shop', { url: 'https://shop.example.com/100%25-cotton', slug: 'tee', tags: ['Promo'] });
      await create('plain', { url: 'https://example.org/launchpad', slug: 'pad' });
      await create('archived', {
        url: 'https://example.org/launch-old',
        slug: 'old-launch',
        tags: ['promo'],
      });
      await h.v1(key, { method: 'POST', url: `/v1/links/${ids.archived}/archive` });
      // Another organization's links match every filter and must never show up.
      await create(
        'foreign',
        {
          url: 'https://www.youtube.com/watch?v=launch',
          slug: 'launch',
          tags: ['promo'],
        },
        otherKey,
      );
    });
    afterAll(async () => h?.close());

    it('without filters lists every live link of the organization, newest first', async () => {
      expect(await list('')).toEqual(['plain', 'shop', 'spotify', 'yt']);
    });

    it('q is a case-insensitive substring of the slug or the destination', async () => {
      expect(await list('q=LAUNCH')).toEqual(['plain', 'yt']);
      expect(await list('q=spring-l')).toEqual(['yt']);
      expect(await list('q=open.spotify')).toEqual(['spotify']);
      expect(await list('q=nothing-matches-this')).toEqual([]);
      // Blank is no filter.
      expect(await list('q=%20%20')).toEqual(['plain', 'shop', 'spotify', 'yt']);
    });

    it('q treats LIKE wildcards literally', async () => {
      expect(await list('q=%25')).toEqual(['shop']);
      expect(await list(`q=${encodeURIComponent('song_')}`)).toEqual(['spotify']);
      // An unescaped `_` would match any one character, and "t_e" would find the slug "tee".
      expect(await list(`q=${encodeURIComponent('t_e')}`)).toEqual([]);
    });

    it('tag matches the exact tag, case included', async () => {
      expect(await list('tag=promo')).toEqual(['spotify', 'yt']);
      expect(await list('tag=Promo')).toEqual(['shop']);
      expect(await list('tag=video')).toEqual(['yt']);
      expect(await list('tag=vid')).toEqual([]);
    });

    it('folderId lists the links in that folder', async () => {
      expect(await list(`folderId=${folderA}`)).toEqual(['yt']);
      expect(await list(`folderId=${folderB}`)).toEqual(['spotify']);
    });

    it('filters combine with each other and with limit/offset', async () => {
      expect(await list(`q=launch&tag=promo`)).toEqual(['yt']);
      expect(await list(`tag=promo&folderId=${folderB}`)).toEqual(['spotify']);
      expect(await list(`q=launch&folderId=${folderB}`)).toEqual([]);
      expect(await list('tag=promo&limit=1')).toEqual(['spotify']);
      expect(await list('tag=promo&limit=1&offset=1')).toEqual(['yt']);
      expect(await list('q=e&limit=2&offset=1')).toEqual(['shop', 'spotify']);
    });

    it('another organization sees only its own links through the same filters', async () => {
      expect(await list('q=launch', otherKey)).toEqual(['foreign']);
      expect(await list('tag=promo', otherKey)).toEqual(['foreign']);
      expect(await list(`folderId=${folderA}`, otherKey)).toEqual([]);
    });

    it('keeps the paging rules and rejects malformed filters with 400', async () => {
      for (const query of [
        'limit=201',
        'limit=0',
        'offset=-1',
        'folderId=not-a-uuid',
        `tag=${'x'.repeat(65)}`,
      ]) {
        const response = await h.v1(key, { method: 'GET', url: `/v1/links?${query}` });
        expect(response.statusCode, query).toBe(400);
      }
      const unknown = await h.v1(key, { method: 'GET', url: '/v1/links?folder=x' });
      expect(unknown.statusCode).toBe(400);
    });

    it('the dashboard twin GET /api/links takes the same filters', async () => {
      const { cookie } = await h.session({ email: `filters-${kind.name}@example.com`, orgName: 'Filters' });
      const mine = async (url: string) => {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/links',
          headers: { cookie, 'content-type': 'application/json' },
          payload: { url, tags: ['dash'] },
        });
        expect(response.statusCode).toBe(201);
        return response.json().id as string;
      };
      const first = await mine('https://example.com/Alpha');
      await mine('https://example.com/beta');
      const response = await h.app.inject({
        method: 'GET',
        url: '/api/links?q=alpha&tag=dash&limit=10',
        headers: { cookie },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().links.map((link: { id: string }) => link.id)).toEqual([first]);
      // The session's organization only: the API-key organizations' "launch" links stay out.
      const none = await h.app.inject({ method: 'GET', url: '/api/links?q=launch', headers: { cookie } });
      expect(none.json().links).toEqual([]);
      const tooMany = await h.app.inject({ method: 'GET', url: '/api/links?limit=201', headers: { cookie } });
      expect(tooMany.statusCode).toBe(400);
    });
  });
}
