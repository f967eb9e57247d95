import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EscapeStrategy } from '../../src/core/escape/index.js';
import type { Link } from '../../src/links/schema.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import type { Tier } from '../../src/tenancy/plans.js';
import {
  analyticsKinds,
  clickInput,
  DAY,
  type Harness,
  type HostedAnalytics,
  type HostedOrg,
  NOW,
  startAnalytics,
  TODAY,
} from './setup.js';

/**
 * Taps and outcomes per escape cell (in-app browser × OS × platform × strategy), through the click buffer
 * and the outcome beacon's recorder into the rollups, read back by GET /v1/analytics/escape and its twin
 * as the hosted service serves them (startAnalytics).
 *
 * | taps | link | when    | in-app    | OS      | strategy | outcomes                      |
 * |------|------|---------|-----------|---------|----------|-------------------------------|
 * | 3    | yt   | today   | instagram | ios     | scheme   | opened, opened, browser       |
 * | 2    | yt   | -1 d    | instagram | ios     | x-safari | opened, (none)                |
 * | 1    | yt   | -20 d   | (browser) | android | intent   | broken                        |
 * | 2    | sp   | today   | tiktok    | android | intent   | browser, broken               |
 * | 1    | sp   | today   | instagram | ios     | scheme   | opened                        |
 * | 1    | yt   | today   | instagram | ios     | (a token from before the cells) | opened |
 * | 1    | yt   | today   | desktop, redirected: no tap                                |
 * | 1    | x    | today   | other organization: instagram ios scheme, opened           |
 *
 * yt is in folder F with tag promo; the -20 d tap lies in a whole 7-day block of a 30-day window, so
 * the organization read takes it from the weekly rows.
 */

interface TapSpec {
  link: Link;
  owner: OrgContext;
  daysAgo: number;
  inApp: string | null;
  os: 'ios' | 'android';
  strategy: EscapeStrategy | null;
  outcome?: 'opened' | 'browser' | 'broken';
}

const yesterday = 1;

for (const kind of analyticsKinds) {
  describe.skipIf(kind.skipReason !== null)(`escape cells on ${kind.name}`, () => {
    let a: HostedAnalytics;
    let h: Harness;
    let owner: HostedOrg;
    let otherOwner: HostedOrg;
    let org: OrgContext;
    let other: OrgContext;
    let yt: Link;
    let sp: Link;
    let foreign: Link;
    let folderId: string;
    /** As the organization's owner on `tier`: /v1 (Legend) with its API key, /api with its session. */
    const get = (url: string, tier: Tier = 'legend', who = owner) => a.get(who, url, tier);

    let taps = 0;
    /** One escape-page visit: its click (with the strategy) now, its token for the beacon. */
    function tap(spec: TapSpec): string {
      taps += 1;
      const tapId = `tap-${taps}`;
      const at = TODAY - spec.daysAgo * DAY + 10 * 3_600_000 + taps * 1000;
      h.buffer.record(
        clickInput({
          linkId: spec.link.id,
          orgId: spec.owner.orgId,
          at,
          device: spec.os,
          sourceApp: spec.inApp,
          platformKey: spec.link.platformKey,
          tapId,
          strategy: spec.strategy,
        }),
      );
      return h.tapTokens.issue({
        tapId,
        linkId: spec.link.id,
        orgId: spec.owner.orgId,
        slug: spec.link.slug,
        shortHost: 'lnk.example',
        platformKey: spec.link.platformKey,
        sourceApp: spec.inApp,
        country: null,
        city: null,
        device: spec.os,
        ts: new Date(at).toISOString(),
        variant: null,
        ...(spec.strategy ? { strategy: spec.strategy } : {}),
      });
    }

    beforeAll(async () => {
      a = await startAnalytics(kind);
      h = a.seeding;
      owner = await a.org();
      otherOwner = await a.org();
      org = owner.ctx;
      other = otherOwner.ctx;
      folderId = crypto.randomUUID();
      await h.store.db
        .insertInto('folders')
        .values({ id: folderId, org_id: org.orgId, name: 'F', created_at: new Date(NOW).toISOString() })
        .execute();
      yt = await h.links.create(org, {
        url: 'https://www.youtube.com/watch?v=abc',
        folderId,
        tags: ['promo'],
      });
      sp = await h.links.create(org, { url: 'https://open.spotify.com/track/1' });
      foreign = await h.links.create(other, { url: 'https://www.youtube.com/watch?v=x' });
      expect([yt.platformKey, sp.platformKey]).toEqual(['youtube', 'spotify']);

      const ig = { inApp: 'instagram', os: 'ios' } as const;
      const specs: TapSpec[] = [
        { link: yt, owner: org, daysAgo: 0, ...ig, strategy: 'scheme', outcome: 'opened' },
        { link: yt, owner: org, daysAgo: 0, ...ig, strategy: 'scheme', outcome: 'opened' },
        { link: yt, owner: org, daysAgo: 0, ...ig, strategy: 'scheme', outcome: 'browser' },
        { link: yt, owner: org, daysAgo: yesterday, ...ig, strategy: 'x-safari', outcome: 'opened' },
        { link: yt, owner: org, daysAgo: yesterday, ...ig, strategy: 'x-safari' },
        {
          link: yt,
          owner: org,
          daysAgo: 20,
          inApp: null,
          os: 'android',
          strategy: 'intent',
          outcome: 'broken',
        },
        {
          link: sp,
          owner: org,
          daysAgo: 0,
          inApp: 'tiktok',
          os: 'android',
          strategy: 'intent',
          outcome: 'browser',
        },
        {
          link: sp,
          owner: org,
          daysAgo: 0,
          inApp: 'tiktok',
          os: 'android',
          strategy: 'intent',
          outcome: 'broken',
        },
        { link: sp, owner: org, daysAgo: 0, ...ig, strategy: 'scheme', outcome: 'opened' },
        { link: yt, owner: org, daysAgo: 0, ...ig, strategy: null, outcome: 'opened' },
        { link: foreign, owner: other, daysAgo: 0, ...ig, strategy: 'scheme', outcome: 'opened' },
      ];
      const reports = specs.map((spec) => [tap(spec), spec.outcome] as const);
      // A desktop visit: redirected, no page, no cell.
      h.buffer.record(
        clickInput({ linkId: yt.id, orgId: org.orgId, device: 'desktop', platformKey: 'youtube' }),
      );
      await h.buffer.flush();
      for (const [token, outcome] of reports)
        if (outcome) expect(await h.analytics.recordOutcome(token, outcome)).toBe(true);
    });
    afterAll(async () => {
      await a?.close();
    });

    const cell = (
      inApp: string | null,
      os: string,
      platform: string,
      strategy: string,
      counts: [taps: number, opened: number, browser: number, broken: number],
      openRate: number | null,
    ) => {
      const [taps, opened, browser, broken] = counts;
      return { inApp, os, platform, strategy, taps, opened, browser, broken, openRate };
    };
    const igYtScheme = cell('instagram', 'ios', 'youtube', 'scheme', [3, 2, 1, 0], 0.6667);
    const igYtSafari = cell('instagram', 'ios', 'youtube', 'x-safari', [2, 1, 0, 0], 0.5);
    const ttSpIntent = cell('tiktok', 'android', 'spotify', 'intent', [2, 0, 1, 1], 0);
    const browserYt = cell(null, 'android', 'youtube', 'intent', [1, 0, 0, 1], 0);
    const igSpScheme = cell('instagram', 'ios', 'spotify', 'scheme', [1, 1, 0, 0], 1);

    it('the whole organization over 30 days: every cell with its taps, outcomes and open rate, most taps first', async () => {
      const response = await get('/v1/analytics/escape');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        configured: true,
        sampled: true,
        days: 30,
        cells: [igYtScheme, igYtSafari, ttSpIntent, igSpScheme, browserYt],
      });
    });

    it('days, linkId, folderId and tag narrow the window and the links', async () => {
      const cells = async (query: string) => (await get(`/v1/analytics/escape?${query}`)).json().cells;
      expect(await cells('days=7')).toEqual([igYtScheme, igYtSafari, ttSpIntent, igSpScheme]);
      expect(await cells('days=1')).toEqual([igYtScheme, ttSpIntent, igSpScheme]);
      expect(await cells(`linkId=${sp.id}`)).toEqual([ttSpIntent, igSpScheme]);
      expect(await cells(`folderId=${folderId}`)).toEqual([igYtScheme, igYtSafari, browserYt]);
      expect(await cells('tag=promo&days=90')).toEqual([igYtScheme, igYtSafari, browserYt]);
      expect(await cells('tag=nothing')).toEqual([]);
    });

    it("another organization's link is not found; its taps never show in this organization", async () => {
      const response = await get(`/v1/analytics/escape?linkId=${foreign.id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: 'not_found' });
      const theirs = (await get('/v1/analytics/escape', 'legend', otherOwner)).json();
      expect(theirs.cells).toEqual([cell('instagram', 'ios', 'youtube', 'scheme', [1, 1, 0, 0], 1)]);
    });

    it('below hero: the same shape, no cells, and the upgrade message', async () => {
      const response = await get('/api/analytics/escape', 'sidekick');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        configured: true,
        sampled: true,
        days: 30,
        cells: [],
        upgrade: 'Upgrade to hero or legend to see this data.',
      });
    });

    it("bad queries answer 400 with the spec's error body", async () => {
      for (const query of ['days=0', 'days=91', 'days=two', 'linkId=', 'platform=youtube']) {
        const response = await get(`/v1/analytics/escape?${query}`);
        expect(response.statusCode, query).toBe(400);
        const body = response.json();
        expect(body.error, query).toBe('invalid_query');
        // The message names the field at fault.
        expect(body.message, query).toMatch(/days|linkId|platform/);
      }
    });

    it('the dashboard twin answers the same, under its own operation id', async () => {
      const v1 = (await get('/v1/analytics/escape?days=90')).json();
      const twin = await get('/api/analytics/escape?days=90');
      expect(twin.statusCode).toBe(200);
      expect(twin.json()).toEqual(v1);
      expect(await a.operationIds()).toEqual(
        expect.arrayContaining(['getEscapeCells', 'dashboardGetEscapeCells']),
      );
    });

    it("every organization's outcomes per cell and strategy, for the bandit", async () => {
      const outcomes = await h.analytics.allOrgCellOutcomes(30);
      expect(Object.fromEntries([...outcomes].map(([key, arms]) => [key, Object.fromEntries(arms)]))).toEqual(
        {
          'instagram|ios|youtube': {
            // Two organizations' taps together: 2 + 1 opened of 3 + 1 reported.
            scheme: { opened: 3, outcomes: 4 },
            'x-safari': { opened: 1, outcomes: 1 },
          },
          '|android|youtube': { intent: { opened: 0, outcomes: 1 } },
          'tiktok|android|spotify': { intent: { opened: 0, outcomes: 2 } },
          'instagram|ios|spotify': { scheme: { opened: 1, outcomes: 1 } },
        },
      );
      // The -20 d outcome is outside a 7-day window.
      expect((await h.analytics.allOrgCellOutcomes(7)).has('|android|youtube')).toBe(false);
    });

    it('with analytics off: configured false and no cells', async () => {
      const off = await a.analyticsOff();
      const response = await a.get(owner, '/v1/analytics/escape', 'legend', off);
      expect(response.json()).toEqual({ configured: false, sampled: true, days: 30, cells: [] });
    });
  });
}
