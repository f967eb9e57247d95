import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tier } from '../../src/tenancy/plans.js';
import { eventually } from '../helpers/eventually.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * The dashboard's twins of /v1/links/{id}/clicks and /v1/analytics/export: the same service calls behind
 * the session cookie, mounted in the composed service, with their own operation ids.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`dashboard clicks and export twins on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => h?.close());

    const cookieOf = (setCookie: string | string[] | undefined) => String(setCookie).split(';')[0] ?? '';

    /** An organization with a dashboard user, logged in: its cookie and a /v1 key to seed links with. */
    async function member(tier: Tier) {
      const email = `twin-${tier}-${Math.random().toString(36).slice(2, 8)}@example.com`;
      const password = 'correct horse battery';
      const { orgId } = await h.accounts.createOrganization({ name: `Twin ${tier}`, tier, email, password });
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: { email, password },
      });
      expect(login.statusCode).toBe(200);
      return { orgId, cookie: cookieOf(login.headers['set-cookie']) };
    }
    const api = (cookie: string, url: string) => h.app.inject({ method: 'GET', url, headers: { cookie } });

    it('GET /api/links/:id/clicks lists the clicks newest first; sidekick gets upgrade; other orgs 404', async () => {
      const hero = await member('hero');
      const { apiKey } = await h.org('legend');
      // A hero org cannot hold a /v1 key: create its link through the dashboard route.
      const created = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { cookie: hero.cookie, 'content-type': 'application/json' },
        payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      });
      expect(created.statusCode).toBe(201);
      const link = created.json();
      const visit = (userAgent: string) =>
        h.app.inject({
          method: 'GET',
          url: `/${link.slug}`,
          headers: { host: 'lnk.example', 'user-agent': userAgent, 'cf-ipcountry': 'DE' },
        });
      expect((await visit(UA.desktopChrome)).statusCode).toBe(302);
      const page = await visit(UA.instagramIos);
      const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(page.body)?.[1];
      expect(token).toBeTruthy();
      const tap = await h.app.inject({
        method: 'POST',
        url: '/api/public/tap',
        headers: { 'content-type': 'application/json' },
        payload: { token, outcome: 'opened' },
      });
      expect(tap.statusCode).toBe(204);

      const body = await eventually(
        async () => (await api(hero.cookie, `/api/links/${link.id}/clicks`)).json(),
        (value) => value.clicks?.length === 2 && value.clicks[0]?.outcome === 'opened',
      );
      expect(body.configured).toBe(true);
      expect(body.clicks.map((click: { outcome: string }) => click.outcome)).toEqual(['opened', 'redirect']);
      expect(body.clicks[0]).toMatchObject({ sourceApp: 'instagram', country: 'DE', device: 'ios' });
      expect(body.clicks[1]).toMatchObject({ country: 'DE', device: 'desktop' });
      // The same answer as /v1 would give: paging works the same way.
      const paged = (await api(hero.cookie, `/api/links/${link.id}/clicks?limit=1&offset=1`)).json();
      expect(paged.clicks.map((click: { outcome: string }) => click.outcome)).toEqual(['redirect']);
      expect((await api(hero.cookie, `/api/links/${link.id}/clicks?limit=500`)).statusCode).toBe(400);

      // After a downgrade the route answers the upgrade sentence and no rows.
      await h.accounts.setTier(hero.orgId, 'sidekick');
      const sidekick = (await api(hero.cookie, `/api/links/${link.id}/clicks`)).json();
      expect(sidekick).toEqual({ configured: true, clicks: [], upgrade: expect.any(String) });
      await h.accounts.setTier(hero.orgId, 'hero');

      // Tenancy: another organization's session sees 404; no session is 401.
      const stranger = await member('legend');
      expect((await api(stranger.cookie, `/api/links/${link.id}/clicks`)).statusCode).toBe(404);
      expect((await h.app.inject({ method: 'GET', url: `/api/links/${link.id}/clicks` })).statusCode).toBe(
        401,
      );
      // The /v1 original is unchanged and still needs its key.
      expect((await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/clicks` })).statusCode).toBe(
        404,
      );

      // GET /api/analytics/export: CSV of the same clicks, gated by analyticsExport.
      const csv = await api(hero.cookie, `/api/analytics/export?days=7&linkId=${link.id}`);
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toBe('attachment; filename="linkhop-analytics-7d.csv"');
      const lines = csv.body.trimEnd().split('\r\n');
      expect(lines[0]).toMatch(/^id,at,slug,link_id,/);
      expect(lines).toHaveLength(3);
      expect(lines.slice(1).every((line) => line.includes(`,${link.slug},${link.id},`))).toBe(true);
      const json = await api(hero.cookie, `/api/analytics/export?format=json`);
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.json()).toMatchObject({ configured: true, days: 30 });
      expect(json.json().clicks).toHaveLength(2);
      expect((await api(hero.cookie, '/api/analytics/export?format=xml')).statusCode).toBe(400);

      const low = await member('sidekick');
      const refused = await api(low.cookie, '/api/analytics/export');
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('analytics_export');
    });

    it('the twins carry dashboard operation ids next to the /v1 ones', async () => {
      const spec = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const ids = (path: string) =>
        Object.values(spec.paths[path] ?? {}).map(
          (operation) => (operation as { operationId: string }).operationId,
        );
      expect(ids('/api/links/{id}/clicks')).toEqual(['dashboardListLinkClicks']);
      expect(ids('/v1/links/{id}/clicks')).toEqual(['listLinkClicks']);
      expect(ids('/api/analytics/export')).toEqual(['dashboardExportAnalytics']);
      expect(ids('/v1/analytics/export')).toEqual(['exportAnalytics']);
    });
  });
}
