import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgContext } from '../../src/tenancy/context.js';
import { as, type Harness, harness, uniqueHandle } from '../bio/setup.js';
import { storeKinds } from '../helpers/stores.js';

const ALL_ON = { taps: true, appOpenRate: true, platforms: true, topLinks: true, trend: true };
const ALL_OFF = { taps: false, appOpenRate: false, platforms: false, topLinks: false, trend: false };
const IDENTITY = [
  'avatarUrl',
  'bio',
  'configured',
  'empty',
  'handle',
  'sampled',
  'theme',
  'title',
  'updatedAt',
  'window',
];

/** hosted-service.md 4.3 on both dialects: settings, preview, public payload and its privacy rules. */
describe.each(storeKinds)('media kit routes ($name)', (kind) => {
  let h: Harness;
  const run = kind.skipReason ? it.skip : it;

  beforeAll(async () => {
    if (!kind.skipReason) h = await harness(kind);
  });
  afterAll(async () => h?.close());

  /** A hero org with a published bio page holding two links, and known numbers for it. */
  async function creator(options: { withNumbers?: boolean; published?: boolean } = {}) {
    const ctx: OrgContext = await h.org('hero');
    const handle = uniqueHandle('Kit');
    await as(h.app, ctx).put('/api/bio', { handle, title: 'Kit', published: options.published ?? true });
    const a = await h.link(ctx);
    const b = await h.link(ctx, 'https://open.spotify.com/artist/1');
    const hidden = await h.link(ctx, 'https://secret.example/private');
    await as(h.app, ctx).put('/api/bio/blocks', [
      { t: 'link', id: 'a', linkId: a.id, label: 'Video' },
      { t: 'social', id: 's', items: [{ key: 'spotify', linkId: b.id }] },
    ]);
    if (options.withNumbers !== false) {
      h.stats.summaries.set(ctx.orgId, {
        taps: 1234.4,
        outcomes: { opened: 700, browser: 250, broken: 50 },
        platforms: [
          { platform: 'youtube', clicks: 900 },
          { platform: 'spotify', clicks: 300.6 },
          { platform: 'web', clicks: 0 },
        ],
        topLinks: [{ linkId: hidden.id, clicks: 5000 }],
        trend: [
          { day: '2026-01-01', clicks: 10 },
          { day: '2026-01-02', clicks: 25 },
        ],
      });
      h.stats.links.set(a.id, { clicks: 900, outcomes: { opened: 600, browser: 200, broken: 20 } });
      h.stats.links.set(b.id, { clicks: 300, outcomes: { opened: 100, browser: 50, broken: 30 } });
      h.stats.links.set(hidden.id, { clicks: 5000, outcomes: { opened: 0, browser: 0, broken: 0 } });
    }
    return { ctx, handle: handle.toLowerCase(), a, b, hidden };
  }

  run('without a bio page: GET says needsBioPage; PUT and DELETE are 404 no_bio_page', async () => {
    const ctx = await h.org('hero');
    expect((await as(h.app, ctx).get('/api/media-kit')).json()).toEqual({
      kit: null,
      preview: null,
      needsBioPage: true,
    });
    for (const res of [
      await as(h.app, ctx).put('/api/media-kit', { published: true }),
      await as(h.app, ctx).delete('/api/media-kit'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('no_bio_page');
    }
    expect((await as(h.app, null).get('/api/media-kit')).statusCode).toBe(401);
  });

  run('never opted in: kit null, preview built from the default-deny settings', async () => {
    const { ctx } = await creator();
    const body = (await as(h.app, ctx).get('/api/media-kit')).json();
    expect(body.kit).toBeNull();
    expect(Object.keys(body.preview).sort()).toEqual(IDENTITY);
    expect(body.preview).toMatchObject({ empty: true, sampled: true, window: 90, configured: true });
  });

  run('PUT is default-deny: only literal true counts, and the object is rebuilt in full', async () => {
    const { ctx } = await creator();
    const first = await as(h.app, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    expect(first.statusCode).toBe(200);
    expect(first.json().kit).toEqual({ published: true, show: ALL_ON });
    const second = await as(h.app, ctx).put('/api/media-kit', {
      published: 'true',
      show: { taps: 1, appOpenRate: 'yes', platforms: null, trend: true, unknown: true },
    });
    expect(second.json().kit).toEqual({ published: false, show: { ...ALL_OFF, trend: true } });
    expect((await as(h.app, ctx).put('/api/media-kit', {})).json().kit).toEqual({
      published: false,
      show: ALL_OFF,
    });
    expect((await as(h.app, ctx).get('/api/media-kit')).json().kit).toEqual({
      published: false,
      show: ALL_OFF,
    });
  });

  run('PUT 400 for a body that is not an object; 403 media_kit below hero', async () => {
    const { ctx } = await creator();
    for (const body of [[1], 'x', { show: 'all' }]) {
      const res = await as(h.app, ctx).put('/api/media-kit', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const low = await h.org('sidekick');
    await as(h.app, low).put('/api/bio', { handle: uniqueHandle(), title: 'Low' });
    const res = await as(h.app, low).put('/api/media-kit', { published: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('media_kit');
    // Reading and clearing need no plan.
    expect((await as(h.app, low).get('/api/media-kit')).statusCode).toBe(200);
    expect((await as(h.app, low).delete('/api/media-kit')).statusCode).toBe(200);
  });

  run(
    'the public payload with every section on: exactly these keys, whole numbers, only bio-page links',
    async () => {
      const { ctx, handle, a, b, hidden } = await creator();
      await as(h.app, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
      const res = await as(h.app, null).get(`/api/public/media-kit/${handle.toUpperCase()}`);
      expect(res.statusCode).toBe(200);
      const kit = res.json();
      expect(Object.keys(kit).sort()).toEqual(
        [...IDENTITY, 'appOpen', 'platforms', 'taps', 'topLinks', 'trend'].sort(),
      );
      expect(kit).toMatchObject({
        handle,
        empty: false,
        sampled: true,
        configured: true,
        window: 90,
        taps: 1234,
      });
      expect(kit.appOpen).toEqual({ rate: 0.7, opened: 700, browser: 250, broken: 50 });
      expect(kit.platforms).toEqual([
        { platform: 'youtube', clicks: 900 },
        { platform: 'spotify', clicks: 301 },
      ]);
      expect(kit.topLinks).toEqual([
        { label: 'Video', url: a.shortUrl, clicks: 900 },
        { label: 'spotify', url: b.shortUrl, clicks: 300 },
      ]);
      for (const row of kit.topLinks) expect(Object.keys(row).sort()).toEqual(['clicks', 'label', 'url']);
      expect(kit.trend).toEqual([
        { day: '2026-01-01', clicks: 10 },
        { day: '2026-01-02', clicks: 25 },
      ]);
      for (const secret of [
        a.id,
        b.id,
        hidden.id,
        hidden.shortUrl,
        a.destination,
        ctx.orgId,
        'hero',
        'published',
        'createdAt',
        'country',
        'city',
        'device',
        'referrer',
      ]) {
        expect(res.body).not.toContain(secret);
      }
    },
  );

  run('sections switched off are absent; nothing to report is empty with no zeros', async () => {
    const { ctx, handle } = await creator();
    await as(h.app, ctx).put('/api/media-kit', { published: true, show: { taps: true } });
    const some = (await as(h.app, null).get(`/api/public/media-kit/${handle}`)).json();
    expect(Object.keys(some).sort()).toEqual([...IDENTITY, 'taps'].sort());

    const quiet = await creator({ withNumbers: false });
    await as(h.app, quiet.ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const empty = (await as(h.app, null).get(`/api/public/media-kit/${quiet.handle}`)).json();
    expect(Object.keys(empty).sort()).toEqual(IDENTITY);
    expect(empty.empty).toBe(true);
  });

  run('taps without outcome rows: the appOpen section stays absent (never a 0 rate)', async () => {
    const { ctx, handle } = await creator();
    const summary = h.stats.summaries.get(ctx.orgId);
    if (!summary) throw new Error('creator() sets the numbers');
    h.stats.summaries.set(ctx.orgId, { ...summary, outcomes: { opened: 0, browser: 0, broken: 0 } });
    await as(h.app, ctx).put('/api/media-kit', { published: true, show: { taps: true, appOpenRate: true } });
    const kit = (await as(h.app, null).get(`/api/public/media-kit/${handle}`)).json();
    expect(kit.taps).toBe(1234);
    expect('appOpen' in kit).toBe(false);
  });

  run('one 404 for unknown, malformed, unpublished page, no kit and unpublished kit', async () => {
    const noKit = await creator();
    const draftKit = await creator();
    await as(h.app, draftKit.ctx).put('/api/media-kit', { published: false, show: ALL_ON });
    const draftPage = await creator({ published: false });
    await as(h.app, draftPage.ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    for (const handle of [
      uniqueHandle('nobody'),
      'x',
      'bad..one',
      noKit.handle,
      draftKit.handle,
      draftPage.handle,
    ]) {
      const res = await as(h.app, null).get(`/api/public/media-kit/${handle}`);
      expect(res.statusCode, handle).toBe(404);
      expect(res.json().error).toBe('not_found');
      expect((await as(h.app, null).get(`/api/public/media-kit/${handle}/card.svg`)).statusCode).toBe(404);
      expect((await as(h.app, null).get(`/@${handle}/media-kit`)).statusCode).toBe(404);
    }
  });

  run('DELETE clears only the kit; deleting the bio page takes the kit with it', async () => {
    const { ctx, handle } = await creator();
    await as(h.app, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const res = await as(h.app, ctx).delete('/api/media-kit');
    expect(res.json()).toEqual({ deleted: true });
    expect((await as(h.app, ctx).get('/api/media-kit')).json().kit).toBeNull();
    expect((await as(h.app, null).get(`/api/public/bio/${handle}`)).statusCode).toBe(200);
    expect((await as(h.app, null).get(`/api/public/media-kit/${handle}`)).statusCode).toBe(404);

    await as(h.app, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    await as(h.app, ctx).delete('/api/bio');
    await as(h.app, ctx).put('/api/bio', { handle, title: 'Again', published: true });
    expect((await as(h.app, ctx).get('/api/media-kit')).json().kit).toBeNull();
  });

  run(
    'the card: svg 1200x630 when published with appOpenRate on; 404 when that section is off; 409 no_data',
    async () => {
      const { ctx, handle } = await creator();
      await as(h.app, ctx).put('/api/media-kit', { published: true, show: { appOpenRate: true } });
      const res = await as(h.app, null).get(`/api/public/media-kit/${handle}/card.svg`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="1200" height="630"/);
      expect(res.body).toContain('>70%<');

      await as(h.app, ctx).put('/api/media-kit', { published: true, show: { taps: true } });
      expect((await as(h.app, null).get(`/api/public/media-kit/${handle}/card.svg`)).statusCode).toBe(404);

      const quiet = await creator({ withNumbers: false });
      await as(h.app, quiet.ctx).put('/api/media-kit', { published: true, show: { appOpenRate: true } });
      const none = await as(h.app, null).get(`/api/public/media-kit/${quiet.handle}/card.svg`);
      expect(none.statusCode).toBe(409);
      expect(none.json().error).toBe('no_data');
    },
  );

  run('the HTML page shows the chosen numbers with no script, the card as og:image', async () => {
    const { ctx, handle, hidden } = await creator();
    await as(h.app, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const res = await as(h.app, null).get(`/@${handle}/media-kit`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('1,234');
    expect(res.body).toContain('70%');
    expect(res.body).toContain(
      `<meta property="og:image" content="https://lnk.example/api/public/media-kit/${handle}/card.svg">`,
    );
    expect(res.body).not.toMatch(/<script|style="/);
    expect(res.body).not.toContain(hidden.shortUrl);
    expect(Buffer.byteLength(res.body)).toBeLessThan(30 * 1024);
  });

  run('a plan that lost mediaKit takes the public kit down', async () => {
    const { ctx, handle } = await creator();
    await as(h.app, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    await h.testStore.store.db
      .updateTable('organizations')
      .set({ tier: 'sidekick' })
      .where('id', '=', ctx.orgId)
      .execute();
    expect((await as(h.app, null).get(`/api/public/media-kit/${handle}`)).statusCode).toBe(404);
  });
});
