import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/stores.js';
import { as, BASE_URL, type Harness, harness, type Org, uniqueHandle } from './setup.js';

/**
 * Every rule of hosted-service.md 4.2, on both dialects, through the routes of the hosted service. /v1
 * answers Legend only, so the other plans' calls go to the dashboard's /api, which serves the same plugin.
 */
describe.each(storeKinds)('bio page routes ($name)', (kind) => {
  let h: Harness;
  let hero: Org;
  let sidekick: Org;

  beforeAll(async () => {
    if (kind.skipReason) return;
    h = await harness(kind);
    hero = await h.org('hero');
    sidekick = await h.org('sidekick');
  });
  afterAll(async () => h?.close());

  const run = kind.skipReason ? it.skip : it;

  run('GET answers {page: null} before a page exists, and 401 without credentials', async () => {
    const ctx = await h.org('sidekick');
    const res = await as(h, ctx).get('/api/bio');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ page: null });
    expect((await as(h, null).get('/api/bio')).statusCode).toBe(401);
    expect((await as(h, null).get('/v1/bio')).statusCode).toBe(401);
  });

  run('PUT creates the page (lowercased handle, unpublished by default), then updates it', async () => {
    const ctx = await h.org('sidekick');
    const handle = uniqueHandle('Ada');
    const created = await as(h, ctx).put('/api/bio', { handle, title: 'Ada' });
    expect(created.statusCode).toBe(200);
    const page = created.json();
    expect(Object.keys(page).sort()).toEqual(
      [
        'avatarUrl',
        'bio',
        'blocks',
        'createdAt',
        'handle',
        'id',
        'published',
        'theme',
        'title',
        'updatedAt',
      ].sort(),
    );
    expect(page).toMatchObject({
      handle: handle.toLowerCase(),
      title: 'Ada',
      bio: null,
      avatarUrl: null,
      theme: null,
      blocks: [],
      published: false,
    });
    const updated = await as(h, ctx).put('/api/bio', { handle, bio: 'Hello', published: true });
    expect(updated.json()).toMatchObject({ id: page.id, title: 'Ada', bio: 'Hello', published: true });
    expect((await as(h, ctx).get('/api/bio')).json().page.id).toBe(page.id);
  });

  run('a bad handle is 400 invalid_handle; a reserved one too', async () => {
    const ctx = await h.org('sidekick');
    for (const handle of ['ab', '.dot', 'has space', 'admin', 'API', 'x'.repeat(31)]) {
      const res = await as(h, ctx).put('/api/bio', { handle, title: 'T' });
      expect(res.statusCode, handle).toBe(400);
      expect(res.json().error).toBe('invalid_handle');
    }
  });

  run(
    'handles are unique case-insensitively: 409 handle_taken for another org, fine for the owner',
    async () => {
      const a = await h.org('sidekick');
      const b = await h.org('sidekick');
      const handle = uniqueHandle('taken');
      expect((await as(h, a).put('/api/bio', { handle, title: 'A' })).statusCode).toBe(200);
      const clash = await as(h, b).put('/api/bio', { handle: handle.toUpperCase(), title: 'B' });
      expect(clash.statusCode).toBe(409);
      expect(clash.json().error).toBe('handle_taken');
      expect((await as(h, a).put('/api/bio', { handle: handle.toUpperCase(), title: 'A2' })).statusCode).toBe(
        200,
      );
    },
  );

  run('an invalid body is 400 with issues', async () => {
    const ctx = await h.org('hero');
    const handle = uniqueHandle();
    for (const body of [
      { handle, avatarUrl: 'http://insecure.example/a.png' },
      { handle, title: '' },
      { handle, published: 'yes' },
      { handle, extra: 1 },
      { title: 'no handle' },
      { handle, theme: { bg: 'red', ink: 'black', accent: 'url(https://x.example)' } },
      { handle, theme: { bg: 'red;}body{display:none', ink: '#000', accent: '#fff' } },
      { handle, theme: { bg: '#fff', ink: '#000' } },
    ]) {
      const res = await as(h, ctx).put('/api/bio', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe('invalid_body');
      expect(Array.isArray(res.json().issues)).toBe(true);
    }
  });

  run(
    'a theme needs bioCustomTheme (403 bio_custom_theme); hero can set it; omitting it keeps it; null clears it',
    async () => {
      const theme = { bg: '#101014', ink: 'rgb(250, 250, 250)', accent: 'hsl(260 90% 60%)' };
      const denied = await as(h, sidekick).put('/api/bio', { handle: uniqueHandle(), theme });
      expect(denied.statusCode).toBe(403);
      expect(denied.json().error).toBe('bio_custom_theme');
      const handle = uniqueHandle();
      expect((await as(h, hero).put('/api/bio', { handle, theme })).json().theme).toEqual(theme);
      expect((await as(h, hero).put('/api/bio', { handle, title: 'Kept' })).json().theme).toEqual(theme);
      expect((await as(h, hero).put('/api/bio', { handle, theme: null })).json().theme).toBeNull();
      // Clearing is allowed on every plan.
      expect(
        (await as(h, sidekick).put('/api/bio', { handle: uniqueHandle(), theme: null })).statusCode,
      ).toBe(200);
    },
  );

  run('blocks: array or {blocks}; validated as a union; replaced as a whole', async () => {
    const ctx = await h.org('sidekick');
    await as(h, ctx).put('/api/bio', { handle: uniqueHandle(), title: 'B' });
    const l1 = await h.link(ctx);
    const l2 = await h.link(ctx, 'https://www.instagram.com/ada');
    const blocks = [
      { t: 'header', id: 'h1', text: 'Listen' },
      { t: 'link', id: 'b1', linkId: l1.id, label: 'New video', note: 'out now' },
      { t: 'text', id: 't1', text: 'Thanks for stopping by' },
      { t: 'social', id: 's1', items: [{ key: 'instagram', linkId: l2.id }] },
    ];
    const saved = await as(h, ctx).put('/api/bio/blocks', blocks);
    expect(saved.statusCode).toBe(200);
    expect(saved.json().blocks).toEqual(blocks);
    const wrapped = await as(h, ctx).put('/api/bio/blocks', { blocks: blocks.slice(0, 2) });
    expect(wrapped.json().blocks).toEqual(blocks.slice(0, 2));
    expect((await as(h, ctx).get('/api/bio')).json().page.blocks).toEqual(blocks.slice(0, 2));
  });

  run('invalid blocks are 400 invalid_blocks and nothing is written', async () => {
    const ctx = await h.org('sidekick');
    await as(h, ctx).put('/api/bio', { handle: uniqueHandle(), title: 'B' });
    const link = await h.link(ctx);
    const good = [{ t: 'link', id: 'a', linkId: link.id, label: 'A' }];
    await as(h, ctx).put('/api/bio/blocks', good);
    for (const body of [
      'nope',
      { items: [] },
      [{ t: 'video', id: 'x' }],
      [{ t: 'link', id: 'x', linkId: link.id, label: 'A', url: 'https://evil.example' }],
      [{ t: 'link', id: 'x', linkId: 'not-a-uuid', label: 'A' }],
      [{ t: 'header', id: 'x', text: '' }],
      [{ t: 'social', id: 's', items: [] }],
      [
        { t: 'text', id: 'dup', text: 'a' },
        { t: 'text', id: 'dup', text: 'b' },
      ],
      Array.from({ length: 101 }, (_, i) => ({ t: 'text', id: `t${i}`, text: 'x' })),
    ]) {
      const res = await as(h, ctx).put('/api/bio/blocks', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().error).toBe('invalid_blocks');
    }
    expect((await as(h, ctx).get('/api/bio')).json().page.blocks).toEqual(good);
  });

  run("unknown_link for another org's link or a made-up id; nothing written", async () => {
    const ctx = await h.org('sidekick');
    const other = await h.org('sidekick');
    await as(h, ctx).put('/api/bio', { handle: uniqueHandle(), title: 'B' });
    const mine = await h.link(ctx);
    const theirs = await h.link(other);
    for (const linkId of [theirs.id, randomUUID()]) {
      const res = await as(h, ctx).put('/api/bio/blocks', [
        { t: 'link', id: 'ok', linkId: mine.id, label: 'Mine' },
        { t: 'social', id: 's', items: [{ key: 'x', linkId }] },
      ]);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('unknown_link');
    }
    expect((await as(h, ctx).get('/api/bio')).json().page.blocks).toEqual([]);
  });

  run('blocks before a page exists: 404', async () => {
    const ctx = await h.org('sidekick');
    const res = await as(h, ctx).put('/api/bio/blocks', []);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('no_bio_page');
  });

  run('DELETE removes the page (404 when there is none) and the links keep existing', async () => {
    const ctx = await h.org('sidekick');
    const handle = uniqueHandle();
    await as(h, ctx).put('/api/bio', { handle, title: 'B', published: true });
    const link = await h.link(ctx);
    await as(h, ctx).put('/api/bio/blocks', [{ t: 'link', id: 'a', linkId: link.id, label: 'A' }]);
    const res = await as(h, ctx).delete('/api/bio');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect((await as(h, ctx).get('/api/bio')).json()).toEqual({ page: null });
    expect((await as(h, ctx).delete('/api/bio')).statusCode).toBe(404);
    expect((await as(h, ctx).get(`/api/links/${link.id}`)).json().id).toBe(link.id);
    expect((await as(h, null).get(`/api/public/bio/${handle}`)).statusCode).toBe(404);
    // The handle is free again.
    expect((await as(h, await h.org('sidekick')).put('/api/bio', { handle, title: 'New' })).statusCode).toBe(
      200,
    );
  });

  run('the public page: exactly the allowed keys, service URLs, no link id or destination', async () => {
    const ctx = await h.org('hero');
    const handle = uniqueHandle('Pub');
    const theme = { bg: '#000', ink: '#fff', accent: 'tomato' };
    const saved = await as(h, ctx).put('/api/bio', {
      handle,
      title: 'Pub',
      bio: 'Hi',
      avatarUrl: 'https://cdn.example/a.png',
      theme,
      published: true,
    });
    const link = await h.link(ctx);
    await as(h, ctx).put('/api/bio/blocks', [
      { t: 'link', id: 'a', linkId: link.id, label: 'Watch', note: 'new' },
      { t: 'social', id: 's', items: [{ key: 'youtube', linkId: link.id }] },
      { t: 'text', id: 't', text: 'hello' },
    ]);
    const res = await as(h, null).get(`/api/public/bio/${handle.toUpperCase()}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'avatarUrl',
      'bio',
      'blocks',
      'handle',
      'theme',
      'title',
      'updatedAt',
    ]);
    expect(body).toMatchObject({ handle: handle.toLowerCase(), title: 'Pub', bio: 'Hi', theme });
    expect(body.blocks).toEqual([
      { t: 'link', id: 'a', label: 'Watch', note: 'new', url: link.shortUrl },
      { t: 'social', id: 's', items: [{ key: 'youtube', url: link.shortUrl }] },
      { t: 'text', id: 't', text: 'hello' },
    ]);
    expect(link.shortUrl.startsWith(`${BASE_URL}/`)).toBe(true);
    const text = res.body;
    for (const secret of [link.id, link.destination, ctx.orgId, 'published', 'hero', saved.json().id]) {
      expect(text).not.toContain(secret);
    }
  });

  run('the public page 404s alike for unknown, malformed and unpublished handles', async () => {
    const ctx = await h.org('sidekick');
    const handle = uniqueHandle();
    await as(h, ctx).put('/api/bio', { handle, title: 'Draft', published: false });
    for (const path of [handle, uniqueHandle('ghost'), 'a', 'bad..handle', '%3Cscript%3E', 'x'.repeat(100)]) {
      const res = await as(h, null).get(`/api/public/bio/${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().error).toBe('not_found');
      expect((await as(h, null).get(`/@${path}`)).statusCode, path).toBe(404);
    }
    await as(h, ctx).put('/api/bio', { handle, published: true });
    expect((await as(h, null).get(`/api/public/bio/${handle}`)).statusCode).toBe(200);
    await as(h, ctx).put('/api/bio', { handle, published: false });
    expect((await as(h, null).get(`/api/public/bio/${handle}`)).statusCode).toBe(404);
  });

  run('a theme stops showing publicly when the plan loses bioCustomTheme', async () => {
    const ctx = await h.org('hero');
    const handle = uniqueHandle();
    await as(h, ctx).put('/api/bio', {
      handle,
      theme: { bg: '#000', ink: '#fff', accent: '#f0f' },
      published: true,
    });
    expect((await as(h, null).get(`/api/public/bio/${handle}`)).json().theme).not.toBeNull();
    await h.accounts.setTier(ctx.orgId, 'sidekick');
    expect((await as(h, null).get(`/api/public/bio/${handle}`)).json().theme).toBeNull();
  });

  run('stats: per distinct link in page order with app-open rates; sidekick gets upgrade', async () => {
    const ctx = await h.org('hero');
    await as(h, ctx).put('/api/bio', { handle: uniqueHandle(), title: 'S' });
    const a = await h.link(ctx);
    const b = await h.link(ctx);
    await as(h, ctx).put('/api/bio/blocks', [
      { t: 'link', id: '1', linkId: a.id, label: 'A' },
      {
        t: 'social',
        id: '2',
        items: [
          { key: 'x', linkId: b.id },
          { key: 'y', linkId: a.id },
        ],
      },
    ]);
    await h.clicks(ctx, a.id, 40);
    await h.outcomes(ctx, a.id, { opened: 6, browser: 3, broken: 1 });
    const res = await as(h, ctx).get('/api/bio/stats');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      configured: true,
      sampled: true,
      window: 90,
      blocks: [
        {
          linkId: a.id,
          clicks: 40,
          outcomes: { opened: 6, browser: 3, broken: 1 },
          opened: 6,
          appOpenRate: 0.6,
        },
        {
          linkId: b.id,
          clicks: 0,
          outcomes: { opened: 0, browser: 0, broken: 0 },
          opened: 0,
          appOpenRate: null,
        },
      ],
    });
    expect((await as(h, ctx).get('/api/bio/stats')).json().blocks).toHaveLength(2);
    // The same plugin on /v1, with a Legend organization's API key.
    const legend = await h.org('legend');
    await as(h, legend).put('/v1/bio', { handle: uniqueHandle(), title: 'L' });
    await as(h, legend).put('/v1/bio/blocks', {
      blocks: [{ t: 'link', id: '1', linkId: (await h.link(legend)).id, label: 'L' }],
    });
    expect((await as(h, legend).get('/v1/bio/stats')).json().blocks).toHaveLength(1);
    const low = await as(h, sidekick).get('/api/bio/stats');
    expect(low.statusCode).toBe(200);
    expect(low.json()).toMatchObject({ configured: true, sampled: true, window: 90, blocks: [] });
    expect(typeof low.json().upgrade).toBe('string');
    expect((await as(h, null).get('/api/bio/stats')).statusCode).toBe(401);
  });
});
