import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBioRepo } from '../../src/bio/repo.js';
import { createBioService } from '../../src/bio/service.js';
import type { OrgSummary } from '../../src/bio/stats-source.js';
import { createMediaKitService } from '../../src/mediakit/service.js';
import { as, type Harness, harness, NOW, type Org, uniqueHandle } from '../bio/setup.js';
import { sqliteKind, storeKinds } from '../helpers/stores.js';

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

  /**
   * A hero org with a published bio page holding two links, and known numbers written into the real
   * analytics: the video link (youtube) 900 clicks, 400 yesterday and 500 today, the spotify link 300 today,
   * a link not on the page (the web) 34 yesterday: 1234 taps, 434 yesterday and 800 today. Outcomes: the
   * video link 6 opened and 1 browser, the spotify link one of each: 7 opened of 10, 70%.
   */
  async function creator(
    options: { withNumbers?: boolean; withOutcomes?: boolean; published?: boolean } = {},
  ) {
    const ctx: Org = await h.org('hero');
    const handle = uniqueHandle('Kit');
    await as(h, ctx).put('/api/bio', { handle, title: 'Kit', published: options.published ?? true });
    const a = await h.link(ctx);
    const b = await h.link(ctx, 'https://open.spotify.com/artist/1');
    const hidden = await h.link(ctx, 'https://secret.example/private');
    await as(h, ctx).put('/api/bio/blocks', [
      { t: 'link', id: 'a', linkId: a.id, label: 'Video' },
      { t: 'social', id: 's', items: [{ key: 'spotify', linkId: b.id }] },
    ]);
    if (options.withNumbers !== false) {
      await h.clicks(ctx, a.id, 400, { platformKey: 'youtube', daysAgo: 1 });
      await h.clicks(ctx, a.id, 500, { platformKey: 'youtube' });
      await h.clicks(ctx, b.id, 300, { platformKey: 'spotify' });
      await h.clicks(ctx, hidden.id, 34, { daysAgo: 1 });
      if (options.withOutcomes !== false) {
        await h.outcomes(ctx, a.id, { opened: 6, browser: 1 });
        await h.outcomes(ctx, b.id, { opened: 1, browser: 1, broken: 1 });
      }
    }
    return { ctx, handle: handle.toLowerCase(), a, b, hidden };
  }

  /** The 90-day series the kit shows for creator()'s numbers: zeros but for its last two days. */
  const TREND = Array.from({ length: 90 }, (_, i) => ({
    day: new Date(NOW - (89 - i) * 86_400_000).toISOString().slice(0, 10),
    clicks: i === 88 ? 434 : i === 89 ? 800 : 0,
  }));

  run('without a bio page: GET says needsBioPage; PUT and DELETE are 404 no_bio_page', async () => {
    const ctx = await h.org('hero');
    expect((await as(h, ctx).get('/api/media-kit')).json()).toEqual({
      kit: null,
      preview: null,
      needsBioPage: true,
    });
    for (const res of [
      await as(h, ctx).put('/api/media-kit', { published: true }),
      await as(h, ctx).delete('/api/media-kit'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('no_bio_page');
    }
    expect((await as(h, null).get('/api/media-kit')).statusCode).toBe(401);
  });

  run('never opted in: kit null, preview built from the default-deny settings', async () => {
    const { ctx } = await creator();
    const body = (await as(h, ctx).get('/api/media-kit')).json();
    expect(body.kit).toBeNull();
    expect(Object.keys(body.preview).sort()).toEqual(IDENTITY);
    expect(body.preview).toMatchObject({ empty: true, sampled: true, window: 90, configured: true });
  });

  run('PUT is default-deny: only literal true counts, and the object is rebuilt in full', async () => {
    const { ctx } = await creator();
    const first = await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    expect(first.statusCode).toBe(200);
    expect(first.json().kit).toEqual({ published: true, show: ALL_ON });
    const second = await as(h, ctx).put('/api/media-kit', {
      published: 'true',
      show: { taps: 1, appOpenRate: 'yes', platforms: null, trend: true, unknown: true },
    });
    expect(second.json().kit).toEqual({ published: false, show: { ...ALL_OFF, trend: true } });
    expect((await as(h, ctx).put('/api/media-kit', {})).json().kit).toEqual({
      published: false,
      show: ALL_OFF,
    });
    expect((await as(h, ctx).get('/api/media-kit')).json().kit).toEqual({
      published: false,
      show: ALL_OFF,
    });
  });

  run('PUT 400 for a body that is not an object; 403 media_kit below hero', async () => {
    const { ctx } = await creator();
    for (const body of [[1], 'x', { show: 'all' }]) {
      const res = await as(h, ctx).put('/api/media-kit', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const low = await h.org('sidekick');
    await as(h, low).put('/api/bio', { handle: uniqueHandle(), title: 'Low' });
    const res = await as(h, low).put('/api/media-kit', { published: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('media_kit');
    // Reading and clearing need no plan.
    expect((await as(h, low).get('/api/media-kit')).statusCode).toBe(200);
    expect((await as(h, low).delete('/api/media-kit')).statusCode).toBe(200);
  });

  run(
    'the public payload with every section on: exactly these keys, whole numbers, only bio-page links',
    async () => {
      const { ctx, handle, a, b, hidden } = await creator();
      await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
      const res = await as(h, null).get(`/api/public/media-kit/${handle.toUpperCase()}`);
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
      expect(kit.appOpen).toEqual({ rate: 0.7, opened: 7, browser: 2, broken: 1 });
      expect(kit.platforms).toEqual([
        { platform: 'youtube', clicks: 900 },
        { platform: 'spotify', clicks: 300 },
        { platform: 'web', clicks: 34 },
      ]);
      expect(kit.topLinks).toEqual([
        { label: 'Video', url: a.shortUrl, clicks: 900 },
        { label: 'spotify', url: b.shortUrl, clicks: 300 },
      ]);
      for (const row of kit.topLinks) expect(Object.keys(row).sort()).toEqual(['clicks', 'label', 'url']);
      expect(kit.trend).toEqual(TREND);
      expect(kit.trend.slice(-2)).toEqual([
        { day: '2026-01-01', clicks: 434 },
        { day: '2026-01-02', clicks: 800 },
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
    await as(h, ctx).put('/api/media-kit', { published: true, show: { taps: true } });
    const some = (await as(h, null).get(`/api/public/media-kit/${handle}`)).json();
    expect(Object.keys(some).sort()).toEqual([...IDENTITY, 'taps'].sort());

    const quiet = await creator({ withNumbers: false });
    await as(h, quiet.ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const empty = (await as(h, null).get(`/api/public/media-kit/${quiet.handle}`)).json();
    expect(Object.keys(empty).sort()).toEqual(IDENTITY);
    expect(empty.empty).toBe(true);
  });

  run('taps without outcome rows: the appOpen section stays absent (never a 0 rate)', async () => {
    const { ctx, handle } = await creator({ withOutcomes: false });
    await as(h, ctx).put('/api/media-kit', { published: true, show: { taps: true, appOpenRate: true } });
    const kit = (await as(h, null).get(`/api/public/media-kit/${handle}`)).json();
    expect(kit.taps).toBe(1234);
    expect('appOpen' in kit).toBe(false);
  });

  run('one 404 for unknown, malformed, unpublished page, no kit and unpublished kit', async () => {
    const noKit = await creator();
    const draftKit = await creator();
    await as(h, draftKit.ctx).put('/api/media-kit', { published: false, show: ALL_ON });
    const draftPage = await creator({ published: false });
    await as(h, draftPage.ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    for (const handle of [
      uniqueHandle('nobody'),
      'x',
      'bad..one',
      noKit.handle,
      draftKit.handle,
      draftPage.handle,
    ]) {
      const res = await as(h, null).get(`/api/public/media-kit/${handle}`);
      expect(res.statusCode, handle).toBe(404);
      expect(res.json().error).toBe('not_found');
      expect((await as(h, null).get(`/api/public/media-kit/${handle}/card.svg`)).statusCode).toBe(404);
      expect((await as(h, null).get(`/@${handle}/media-kit`)).statusCode).toBe(404);
    }
  });

  run('DELETE clears only the kit; deleting the bio page takes the kit with it', async () => {
    const { ctx, handle } = await creator();
    await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const res = await as(h, ctx).delete('/api/media-kit');
    expect(res.json()).toEqual({ deleted: true });
    expect((await as(h, ctx).get('/api/media-kit')).json().kit).toBeNull();
    expect((await as(h, null).get(`/api/public/bio/${handle}`)).statusCode).toBe(200);
    expect((await as(h, null).get(`/api/public/media-kit/${handle}`)).statusCode).toBe(404);

    await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    await as(h, ctx).delete('/api/bio');
    await as(h, ctx).put('/api/bio', { handle, title: 'Again', published: true });
    expect((await as(h, ctx).get('/api/media-kit')).json().kit).toBeNull();
  });

  run(
    'the card: svg 1200x630 when published with appOpenRate on; 404 when that section is off; 409 no_data',
    async () => {
      const { ctx, handle } = await creator();
      await as(h, ctx).put('/api/media-kit', { published: true, show: { appOpenRate: true } });
      const res = await as(h, null).get(`/api/public/media-kit/${handle}/card.svg`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="1200" height="630"/);
      expect(res.body).toContain('>70%<');

      await as(h, ctx).put('/api/media-kit', { published: true, show: { taps: true } });
      expect((await as(h, null).get(`/api/public/media-kit/${handle}/card.svg`)).statusCode).toBe(404);

      const quiet = await creator({ withNumbers: false });
      await as(h, quiet.ctx).put('/api/media-kit', { published: true, show: { appOpenRate: true } });
      const none = await as(h, null).get(`/api/public/media-kit/${quiet.handle}/card.svg`);
      expect(none.statusCode).toBe(409);
      expect(none.json().error).toBe('no_data');
    },
  );

  run('the HTML page shows the chosen numbers with no script, the card as og:image', async () => {
    const { ctx, handle, hidden } = await creator();
    await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const res = await as(h, null).get(`/@${handle}/media-kit`);
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
    await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    expect((await as(h, null).get(`/api/public/media-kit/${handle}`)).statusCode).toBe(200);
    await h.accounts.setTier(ctx.orgId, 'sidekick');
    expect((await as(h, null).get(`/api/public/media-kit/${handle}`)).statusCode).toBe(404);
  });
});

/**
 * The analytics store counts whole clicks and never a zero row, so what the kit does with a fractional or
 * zero number from its stats source (round to whole, drop zeros) is asserted on the service itself, with
 * such numbers, over a page made through the hosted service.
 */
describe('media kit numbers from a stats source', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(sqliteKind);
  });
  afterAll(async () => h?.close());

  it('whole numbers: fractions rounded, zero platforms and links dropped', async () => {
    const ctx = await h.org('hero');
    const handle = uniqueHandle('Frac').toLowerCase();
    await as(h, ctx).put('/api/bio', { handle, title: 'Frac', published: true });
    const a = await h.link(ctx);
    const b = await h.link(ctx, 'https://open.spotify.com/artist/1');
    const hidden = await h.link(ctx, 'https://secret.example/private');
    await as(h, ctx).put('/api/bio/blocks', [
      { t: 'link', id: 'a', linkId: a.id, label: 'Video' },
      { t: 'social', id: 's', items: [{ key: 'spotify', linkId: b.id }] },
    ]);
    await as(h, ctx).put('/api/media-kit', { published: true, show: ALL_ON });
    const summary: OrgSummary = {
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
    };
    const perLink = new Map([
      [a.id, { clicks: 900, outcomes: { opened: 600, browser: 200, broken: 20 } }],
      [b.id, { clicks: 300.2, outcomes: { opened: 100, browser: 50, broken: 30 } }],
      [hidden.id, { clicks: 5000, outcomes: { opened: 0, browser: 0, broken: 0 } }],
    ]);
    const stats = {
      configured: true,
      linkStats: async (_orgId: string, ids: string[]) =>
        new Map(ids.flatMap((id) => (perLink.has(id) ? [[id, perLink.get(id) as never] as const] : []))),
      orgSummary: async () => summary,
    };
    const repo = createBioRepo(h.testStore.store);
    const common = { repo, stats, flagsOff: new Set<string>(), now: () => new Date(NOW) };
    const bio = createBioService({ ...common, baseUrl: 'https://lnk.example', uuid: randomUUID });
    const kit = await createMediaKitService({ ...common, bio }).publicKit(handle);
    expect(kit).toMatchObject({ handle, empty: false, taps: 1234 });
    expect(kit.appOpen).toEqual({ rate: 0.7, opened: 700, browser: 250, broken: 50 });
    expect(kit.platforms).toEqual([
      { platform: 'youtube', clicks: 900 },
      { platform: 'spotify', clicks: 301 },
    ]);
    expect(kit.topLinks).toEqual([
      { label: 'Video', url: a.shortUrl, clicks: 900 },
      { label: 'spotify', url: b.shortUrl, clicks: 300 },
    ]);
    expect(kit.trend).toEqual([
      { day: '2026-01-01', clicks: 10 },
      { day: '2026-01-02', clicks: 25 },
    ]);
  });
});
