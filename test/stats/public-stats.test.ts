import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedDomain } from '../helpers/domains.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Public stats (issue #20): `GET /{slug}+` and `GET /api/public/stats/{slug}` answer only when the link's
 * `publicStats` is true, on the host the link lives on, with aggregates of the last 30 days and nothing
 * about a single visitor.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`public stats on ${kind.name}`, () => {
    let h: HostedHarness;
    let apiKey: string;
    let orgId: string;
    beforeAll(async () => {
      h = await startHosted(kind);
      ({ apiKey, orgId } = await h.org('legend'));
    });
    afterAll(async () => h?.close());

    const create = async (payload: object) => {
      const response = await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload });
      expect(response.statusCode).toBe(201);
      return response.json() as { id: string; slug: string; publicStats: boolean };
    };
    const visit = (slug: string, headers: Record<string, string>) =>
      h.app.inject({ method: 'GET', url: `/${slug}`, headers: { host: 'lnk.example', ...headers } });
    const json = (slug: string, host = 'lnk.example') =>
      h.app.inject({ method: 'GET', url: `/api/public/stats/${slug}`, headers: { host } });
    const page = (slug: string, host = 'lnk.example') =>
      h.app.inject({ method: 'GET', url: `/${slug}+`, headers: { host } });

    it('a link is private by default: both addresses are 404', async () => {
      const link = await create({ url: 'https://example.com/private' });
      expect(link.publicStats).toBe(false);
      const api = await json(link.slug);
      expect(api.statusCode).toBe(404);
      expect(api.json()).toMatchObject({ error: 'not_found' });
      expect((await page(link.slug)).statusCode).toBe(404);
      expect((await json('no-such-slug')).statusCode).toBe(404);
    });

    it('when public, the JSON has exactly the issue’s fields over 30 days, counting people only', async () => {
      const link = await create({ url: 'https://example.com/public', publicStats: true });
      await visit(link.slug, { 'user-agent': UA.desktopChrome, 'cf-ipcountry': 'FR' });
      await visit(link.slug, { 'user-agent': UA.iphoneSafari, 'cf-ipcountry': 'FR' });
      await visit(link.slug, { 'user-agent': UA.androidChrome, 'cf-ipcountry': 'DE', 'cf-ipcity': 'Berlin' });
      await visit(link.slug, { 'user-agent': UA.googlebotSmartphone });
      let body = (await json(link.slug)).json();
      for (let i = 0; i < 100 && body.clicks < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        body = (await json(link.slug)).json();
      }
      expect(Object.keys(body).sort()).toEqual([
        'appOpenRate',
        'clicks',
        'countries',
        'devices',
        'series',
        'slug',
      ]);
      expect(body.slug).toBe(link.slug);
      expect(body.clicks).toBe(3);
      expect(body.appOpenRate).toBeNull();
      expect(body.series).toHaveLength(30);
      expect(body.series.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), clicks: 3 });
      expect(body.countries).toEqual([
        { country: 'FR', clicks: 2 },
        { country: 'DE', clicks: 1 },
      ]);
      expect(body.devices.map((d: { device: string }) => d.device).sort()).toEqual([
        'android',
        'desktop',
        'ios',
      ]);
      // Never a visitor-level value: no city, no id, no referrer, no destination.
      const text = JSON.stringify(body);
      expect(text).not.toContain('Berlin');
      expect(text).not.toContain(link.id);
      expect(text).not.toContain('example.com/public');

      const html = await page(link.slug);
      expect(html.statusCode).toBe(200);
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(html.headers['content-security-policy']);
      expect(csp).toMatch(/^default-src 'none'; style-src 'nonce-[^']+'/);
      expect(csp).not.toContain('script-src');
      expect(html.headers['x-content-type-options']).toBe('nosniff');
      expect(html.body).not.toContain('<script');
      expect(html.body).toContain('France');
      expect(html.body).toContain('app-open rate');
      expect(html.body).not.toContain('Berlin');
      // Every style element carries the response's nonce.
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(html.body).toContain(`<style nonce="${nonce}">`);

      // Switched off again: both are 404 at once.
      await h.v1(apiKey, { method: 'PATCH', url: `/v1/links/${link.id}`, payload: { publicStats: false } });
      expect((await json(link.slug)).statusCode).toBe(404);
      expect((await page(link.slug)).statusCode).toBe(404);
    });

    it('the slug is resolved on the request’s host, as the redirect does', async () => {
      const host = `go-${randomUUID().slice(0, 8)}.stats.example`;
      await addVerifiedDomain(h.testStore.store, orgId, host);
      const slug = `shared-${randomUUID().slice(0, 6)}`;
      await create({ url: 'https://example.com/default-host', slug });
      await create({ url: 'https://example.com/custom-host', slug, hostname: host, publicStats: true });
      expect((await json(slug, host)).statusCode).toBe(200);
      expect((await page(slug, host)).statusCode).toBe(200);
      expect((await page(slug, host)).body).toContain(`${host}/${slug}`);
      // The default host's link of the same slug is not public.
      expect((await json(slug)).statusCode).toBe(404);
    });

    it('the links list reads each link’s clicks (30 days) and app-open rate; other organizations count nothing', async () => {
      const mine = await create({ url: 'https://www.youtube.com/watch?v=list' });
      const other = await h.org('legend');
      const foreign = (
        await h.v1(other.apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://example.com/f' },
        })
      ).json();
      await visit(foreign.slug, { 'user-agent': UA.desktopChrome });
      await visit(mine.slug, { 'user-agent': UA.desktopChrome });
      const tap = await visit(mine.slug, { 'user-agent': UA.instagramAndroid });
      const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(tap.body)?.[1];
      await h.app.inject({
        method: 'POST',
        url: '/api/public/tap',
        headers: { 'content-type': 'text/plain' },
        payload: JSON.stringify({ token, outcome: 'opened' }),
      });
      const read = async () =>
        (await h.v1(apiKey, { method: 'GET', url: `/v1/links/stats?ids=${mine.id},${foreign.id}` })).json();
      let body = await read();
      for (let i = 0; i < 100 && body.stats?.[0]?.clicks !== 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        body = await read();
      }
      expect(body).toEqual({
        days: 30,
        stats: [
          { linkId: mine.id, clicks: 2, appOpenRate: 1 },
          { linkId: foreign.id, clicks: 0, appOpenRate: null },
        ],
      });
      const bad = await h.v1(apiKey, { method: 'GET', url: '/v1/links/stats?ids=nope' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe('ids are link ids, separated by commas');
    });

    it('publishing stats needs full analytics (hero and up)', async () => {
      const { cookie } = await h.session({ email: `ps-${Date.now()}@example.com`, orgName: 'Small' });
      const refused = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers: { cookie, origin: 'https://lnk.example' },
        payload: { url: 'https://example.com/x', publicStats: true },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('full_analytics');
    });
  });
}
