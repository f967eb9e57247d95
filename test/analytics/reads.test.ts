import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyticsService } from '../../src/analytics/service.js';
import type { Tier } from '../../src/tenancy/plans.js';
import type { HostedHarness } from '../helpers/hosted.js';
import { type Dataset, reportOutcomes, seed } from './dataset.js';
import {
  analyticsKinds,
  DAY,
  type Harness,
  type HostedAnalytics,
  type HostedOrg,
  NOW,
  startAnalytics,
  TODAY,
} from './setup.js';

const dayIso = (daysAgo: number) => new Date(TODAY - daysAgo * DAY).toISOString().slice(0, 10);

for (const kind of analyticsKinds) {
  describe.skipIf(kind.skipReason !== null)(`analytics reads on ${kind.name}`, () => {
    let a: HostedAnalytics;
    let h: Harness;
    let d: Dataset;
    let org: HostedOrg;
    let other: HostedOrg;
    let offApp: HostedHarness;
    /** As the organization's owner on `tier`: /v1 (Legend) with its API key, /api with its session. */
    const get = (url: string, tier: Tier = 'legend', who = org, on = a.h) => a.get(who, url, tier, on);

    beforeAll(async () => {
      a = await startAnalytics(kind);
      h = a.seeding;
      org = await a.org();
      other = await a.org();
      d = await seed(h, { org: org.ctx, other: other.ctx });
      expect(await reportOutcomes(h, d)).toEqual([true, true, true, true, false]);
      offApp = await a.analyticsOff();
    });
    afterAll(async () => {
      await a?.close();
    });

    it('whole organization, 30 days, every series with exact counts', async () => {
      const response = await get('/v1/analytics');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ configured: true, sampled: true, days: 30, tier: 'legend', total: 6 });
      expect(body.upgrade).toBeUndefined();
      expect(body.perLink).toEqual([
        { slug: 'alpha', clicks: 3 },
        { slug: 'beta', clicks: 2 },
        { slug: 'gamma', clicks: 1 },
      ]);
      expect(body.countries).toEqual([
        { country: 'US', clicks: 3 },
        { country: null, clicks: 1 },
        { country: 'DE', clicks: 1 },
        { country: 'GB', clicks: 1 },
      ]);
      expect(body.devices).toEqual([
        { device: 'android', clicks: 2 },
        { device: 'desktop', clicks: 2 },
        { device: 'ios', clicks: 2 },
      ]);
      expect(body.platforms).toEqual([
        { platform: 'youtube', clicks: 3 },
        { platform: 'spotify', clicks: 2 },
        { platform: null, clicks: 1 },
      ]);
      expect(body.referrers).toEqual([
        { referrer: null, clicks: 2 },
        { referrer: "=cmd|' /c calc'!a0", clicks: 1 },
        { referrer: 'instagram.com', clicks: 1 },
        { referrer: 'm.facebook.com', clicks: 1 },
        { referrer: 't.co', clicks: 1 },
      ]);
      expect(body.timeseries).toHaveLength(30);
      expect(body.timeseries[0]).toEqual({ day: dayIso(29), clicks: 0 });
      expect(body.timeseries.filter((row: { clicks: number }) => row.clicks > 0)).toEqual([
        { day: dayIso(10), clicks: 1 },
        { day: dayIso(1), clicks: 2 },
        { day: dayIso(0), clicks: 3 },
      ]);
      expect(body.hourly).toHaveLength(24);
      expect(body.hourly.filter((row: { clicks: number }) => row.clicks > 0)).toEqual([
        { hour: 0, clicks: 1 },
        { hour: 10, clicks: 2 },
        { hour: 11, clicks: 1 },
        { hour: 14, clicks: 1 },
        { hour: 23, clicks: 1 },
      ]);
      expect(body.outcomes).toEqual({ opened: 1, browser: 1, broken: 1 });
      expect(body.platformOutcomes).toEqual([
        { platform: 'spotify', outcome: 'browser', clicks: 1 },
        { platform: 'youtube', outcome: 'broken', clicks: 1 },
        { platform: 'youtube', outcome: 'opened', clicks: 1 },
      ]);
    });

    it('days, linkId, folderId and tag narrow the window and the links', async () => {
      const total = async (query: string) => (await get(`/v1/analytics?${query}`)).json().total;
      expect(await total('days=90')).toBe(7);
      expect(await total('days=1')).toBe(3);
      expect((await get('/v1/analytics?days=90')).json().outcomes).toEqual({
        opened: 2,
        browser: 1,
        broken: 1,
      });
      const byLink = (await get(`/v1/analytics?linkId=${d.alpha.id}`)).json();
      expect(byLink).toMatchObject({ total: 3, perLink: [{ slug: 'alpha', clicks: 3 }] });
      expect(byLink.outcomes).toEqual({ opened: 1, browser: 0, broken: 1 });
      expect(byLink.hourly.filter((row: { clicks: number }) => row.clicks > 0)).toEqual([
        { hour: 10, clicks: 2 },
        { hour: 11, clicks: 1 },
      ]);
      const folder = (await get(`/v1/analytics?folderId=${d.folderId}`)).json();
      expect(folder.total).toBe(4);
      expect(folder.perLink).toEqual([
        { slug: 'alpha', clicks: 3 },
        { slug: 'gamma', clicks: 1 },
      ]);
      expect(await total('tag=promo')).toBe(5);
      expect(await total(`tag=promo&folderId=${d.folderId}`)).toBe(3);
      expect(await total('tag=nothing')).toBe(0);
      expect((await get('/v1/analytics?days=0')).statusCode).toBe(400);
      expect((await get('/v1/analytics?days=91')).statusCode).toBe(400);
      expect((await get(`/v1/analytics?linkId=${d.foreign.id}`)).statusCode).toBe(404);
    });

    it('every window from 1 to 90 days: 7-day blocks plus edge days add up to the raw rows', async () => {
      const raw = await a.rawClicks(d.org.orgId);
      const times = raw.filter((click) => !click.bot).map((click) => click.at);
      expect(times.length).toBeGreaterThan(0);
      for (let days = 1; days <= 90; days++) {
        const from = TODAY - (days - 1) * DAY;
        const body = await h.analytics.analytics(d.org, { days });
        expect(body.total, `days=${days}`).toBe(times.filter((at) => at >= from).length);
        const perLink = body.perLink.reduce((sum, row) => sum + row.clicks, 0);
        expect(perLink, `perLink days=${days}`).toBe(body.total);
        const hourly = 'hourly' in body ? (body.hourly ?? []).reduce((sum, row) => sum + row.clicks, 0) : -1;
        expect(hourly, `hourly days=${days}`).toBe(body.total);
      }
    });

    it('below hero: totals and upgrade only; hero sees the outcome split', async () => {
      const side = (await get('/api/analytics', 'sidekick')).json();
      expect(side).toEqual({
        configured: true,
        sampled: true,
        days: 30,
        tier: 'sidekick',
        total: 6,
        sources: { link: 6, qr: 0 },
        perLink: [
          { slug: 'alpha', clicks: 3 },
          { slug: 'beta', clicks: 2 },
          { slug: 'gamma', clicks: 1 },
        ],
        upgrade: expect.any(String),
      });
      const hero = (await get('/api/analytics', 'hero')).json();
      expect(hero.outcomes).toEqual({ opened: 1, browser: 1, broken: 1 });
      expect(hero.upgrade).toBeUndefined();
    });

    it('link stats: 90 days, rate from outcome rows, null without them, totals only below hero', async () => {
      expect((await get(`/v1/links/${d.alpha.id}/stats`)).json()).toEqual({
        configured: true,
        total: 4,
        sources: { link: 4, qr: 0 },
        appOpenRate: 0.6667,
        outcomes: { opened: 2, browser: 0, broken: 1 },
      });
      expect((await get(`/v1/links/${d.beta.id}/stats`)).json()).toMatchObject({ total: 2, appOpenRate: 0 });
      expect((await get(`/v1/links/${d.gamma.id}/stats`)).json()).toEqual({
        configured: true,
        total: 1,
        sources: { link: 1, qr: 0 },
        appOpenRate: null,
        outcomes: { opened: 0, browser: 0, broken: 0 },
      });
      expect((await get(`/api/links/${d.alpha.id}/stats`, 'sidekick')).json()).toEqual({
        configured: true,
        total: 4,
        sources: { link: 4, qr: 0 },
        appOpenRate: null,
        outcomes: { opened: 0, browser: 0, broken: 0 },
        upgrade: expect.any(String),
      });
      expect((await get(`/api/links/${d.alpha.id}/stats`, 'hero')).json().appOpenRate).toBe(0.6667);
      expect((await get(`/v1/links/${d.foreign.id}/stats`)).statusCode).toBe(404);
    });

    it('clicks: newest first with outcomes, paged; upgrade below hero', async () => {
      const body = (await get(`/v1/links/${d.alpha.id}/clicks`)).json();
      expect(body.configured).toBe(true);
      expect(body.clicks.map((c: { outcome: string }) => c.outcome)).toEqual([
        'broken',
        'opened',
        'redirect',
        'opened',
      ]);
      expect(body.clicks[0]).toEqual({
        id: expect.any(String),
        at: new Date(TODAY + 11.5 * 3_600_000).toISOString(),
        outcome: 'broken',
        sourceApp: null,
        country: 'US',
        city: null,
        device: 'android',
        source: 'link',
      });
      expect(body.clicks[2]).toMatchObject({ country: 'DE', city: 'Berlin', device: 'desktop' });
      const beta = (await get(`/v1/links/${d.beta.id}/clicks`)).json();
      expect(beta.clicks.map((c: { outcome: string }) => c.outcome)).toEqual(['unknown', 'browser']);
      const page = (await get(`/v1/links/${d.alpha.id}/clicks?limit=2&offset=1`)).json();
      expect(page.clicks.map((c: { outcome: string }) => c.outcome)).toEqual(['opened', 'redirect']);
      expect((await get(`/v1/links/${d.alpha.id}/clicks?limit=201`)).statusCode).toBe(400);
      expect((await get(`/api/links/${d.alpha.id}/clicks`, 'sidekick')).json()).toEqual({
        configured: true,
        clicks: [],
        upgrade: expect.any(String),
      });
      expect((await get(`/v1/links/${d.alpha.id}/clicks`, 'legend', other)).statusCode).toBe(404);
    });

    it('A/B stats: every variant of the link, zeros kept, outcomes per variant; upgrade below hero', async () => {
      const body = (await get(`/v1/links/${d.alpha.id}/ab-stats`)).json();
      expect(body).toEqual({
        configured: true,
        sampled: true,
        window: 90,
        variants: [
          {
            url: 'https://www.youtube.com/watch?v=v0',
            weight: 1,
            variant: 0,
            clicks: 2,
            outcomes: 2,
            opened: 2,
            appOpenRate: 1,
          },
          {
            url: 'https://www.youtube.com/watch?v=v1',
            weight: 3,
            variant: 1,
            clicks: 2,
            outcomes: 1,
            opened: 0,
            appOpenRate: 0,
          },
        ],
      });
      expect((await get(`/api/links/${d.alpha.id}/ab-stats`, 'sidekick')).json()).toEqual({
        configured: true,
        sampled: true,
        window: 90,
        variants: [],
        upgrade: expect.any(String),
      });
      expect((await get(`/v1/links/${d.gamma.id}/ab-stats`)).json().variants).toEqual([]);
      const fresh = await h.links.create(d.org, {
        url: 'https://example.com/n',
        ab: [
          { u: 'https://example.com/a', w: 1 },
          { u: 'https://example.com/b', w: 1 },
        ],
      });
      expect((await get(`/v1/links/${fresh.id}/ab-stats`)).json().variants[1]).toEqual({
        url: 'https://example.com/b',
        weight: 1,
        variant: 1,
        clicks: 0,
        outcomes: 0,
        opened: 0,
        appOpenRate: null,
      });
    });

    it('blockStats for the bio domain: per link in order, rates null without outcome rows', async () => {
      expect(
        await h.analytics.blockStats(d.org.orgId, [d.alpha.id, d.gamma.id, d.beta.id, d.alpha.id]),
      ).toEqual({
        configured: true,
        sampled: true,
        window: 90,
        blocks: [
          { linkId: d.alpha.id, clicks: 4, outcomes: 3, opened: 2, appOpenRate: 0.6667 },
          { linkId: d.gamma.id, clicks: 1, outcomes: 0, opened: 0, appOpenRate: null },
          { linkId: d.beta.id, clicks: 2, outcomes: 1, opened: 0, appOpenRate: 0 },
        ],
      });
      // Another organization's link id reads as zeros: every query is scoped by the caller's organization.
      expect((await h.analytics.blockStats(d.other.orgId, [d.alpha.id])).blocks[0]?.clicks).toBe(0);
    });

    it('export: CSV oldest first with formula cells neutralized, JSON, plan gate', async () => {
      const csv = await get('/v1/analytics/export?days=90');
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      const lines = csv.body.trimEnd().split('\r\n');
      expect(lines[0]).toBe(
        'id,at,slug,link_id,variant,routed,country,city,device,source_app,referrer_host,platform_key,outcome,source',
      );
      expect(lines).toHaveLength(8);
      expect(lines.slice(1).map((line) => line.split(',')[2])).toEqual([
        'alpha',
        'beta',
        'alpha',
        'gamma',
        'beta',
        'alpha',
        'alpha',
      ]);
      expect(lines[5]).toContain(",'=cmd|' /c calc'!a0,spotify,unknown,link");
      expect(
        lines[1]?.endsWith(',0,https://www.youtube.com/watch?v=v0,FR,,ios,tiktok,,youtube,opened,link'),
      ).toBe(true);
      const json = await get(`/v1/analytics/export?format=json&linkId=${d.alpha.id}`);
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      const parsed = json.json();
      expect(parsed).toMatchObject({ configured: true, days: 30, sampled: true });
      expect(parsed.clicks.map((c: { outcome: string }) => c.outcome)).toEqual([
        'redirect',
        'opened',
        'broken',
      ]);
      expect(parsed.clicks[0]).toMatchObject({
        slug: 'alpha',
        linkId: d.alpha.id,
        city: 'Berlin',
        variant: 1,
      });
      expect((await get('/api/analytics/export', 'sidekick')).json().error).toBe('analytics_export');
      expect((await get(`/v1/analytics/export?linkId=${d.foreign.id}`)).statusCode).toBe(404);
      expect((await get('/v1/analytics/export?format=xml')).statusCode).toBe(400);
    });

    it('ANALYTICS=off: configured false and placeholder zeros in every shape', async () => {
      const off = (url: string, tier: Tier = 'legend') => get(url, tier, org, offApp);
      expect((await off(`/v1/links/${d.alpha.id}/stats`)).json()).toEqual({
        configured: false,
        total: 0,
        sources: { link: 0, qr: 0 },
        appOpenRate: null,
        outcomes: { opened: 0, browser: 0, broken: 0 },
      });
      const body = (await off('/v1/analytics?days=7')).json();
      expect(body).toMatchObject({
        configured: false,
        total: 0,
        perLink: [],
        countries: [],
        outcomes: { opened: 0, browser: 0, broken: 0 },
      });
      expect(body.timeseries).toHaveLength(7);
      expect(body.timeseries.every((row: { clicks: number }) => row.clicks === 0)).toBe(true);
      expect(body.hourly.every((row: { clicks: number }) => row.clicks === 0)).toBe(true);
      expect((await off(`/v1/links/${d.alpha.id}/clicks`)).json()).toEqual({ configured: false, clicks: [] });
      const ab = (await off(`/v1/links/${d.alpha.id}/ab-stats`)).json();
      expect(ab.configured).toBe(false);
      expect(
        ab.variants.map((v: { clicks: number; appOpenRate: null }) => [v.clicks, v.appOpenRate]),
      ).toEqual([
        [0, null],
        [0, null],
      ]);
      expect((await off('/api/analytics', 'sidekick')).json()).toMatchObject({
        configured: false,
        total: 0,
        upgrade: expect.any(String),
      });
      expect((await off('/v1/analytics/export')).body).toBe(
        'id,at,slug,link_id,variant,routed,country,city,device,source_app,referrer_host,platform_key,outcome,source\r\n',
      );
      expect((await off(`/v1/links/${d.foreign.id}/stats`)).statusCode).toBe(404);
      const service = createAnalyticsService({
        store: a.h.testStore.store,
        analytics: false,
        links: h.links,
        tapTokens: h.tapTokens,
        emitEvent: async () => {},
        now: () => new Date(NOW),
      });
      expect((await service.blockStats(d.org.orgId, [d.alpha.id])).blocks).toEqual([
        { linkId: d.alpha.id, clicks: 0, outcomes: 0, opened: 0, appOpenRate: null },
      ]);
    });

    it('operation ids are distinct between /v1 and the dashboard twins', async () => {
      const operationIds = await a.operationIds();
      expect(operationIds).toHaveLength(new Set(operationIds).size);
      expect(operationIds).toEqual(
        expect.arrayContaining([
          'getAnalytics',
          'dashboardGetAnalytics',
          'getLinkStats',
          'dashboardGetLinkStats',
        ]),
      );
    });
  });
}
