import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedDomain } from '../helpers/domains.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`hosted redirect with link powers on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    beforeAll(async () => {
      h = await startHosted(kind);
      const org = await h.org('legend');
      key = org.apiKey;
      await addVerifiedDomain(h.testStore.store, org.orgId, 'go.brand.example');
    });
    afterAll(async () => h?.close());

    const create = async (body: object) => {
      const response = await h.v1(key, { method: 'POST', url: '/v1/links', payload: body });
      expect(response.statusCode, response.body).toBe(201);
      return response.json();
    };
    const visit = (slug: string, headers: Record<string, string> = {}, host = 'lnk.example') =>
      h.app.inject({
        method: 'GET',
        url: `/${slug}`,
        headers: { host, 'user-agent': UA.desktopChrome, ...headers },
      });

    it('composes UTM onto the destination and keeps its query; the stored URL is unchanged', async () => {
      const link = await create({
        url: 'https://shop.example/p?id=7',
        utm: { source: 'ig', campaign: 'launch' },
      });
      const response = await visit(link.slug);
      expect(response.statusCode).toBe(302);
      expect(response.headers['cache-control']).toBe('private, max-age=0');
      expect(response.headers.location).toBe('https://shop.example/p?id=7&utm_source=ig&utm_campaign=launch');
      expect(link.destination).toBe('https://shop.example/p?id=7');
    });

    it('routes by device, then by country from GEO_HEADER', async () => {
      const link = await create({
        url: 'https://example.com/default',
        routing: { ios: 'https://apps.apple.com/app/id1', geo: { DE: 'https://example.de/' } },
      });
      expect(
        (await visit(link.slug, { 'user-agent': UA.iphoneSafari, 'cf-ipcountry': 'DE' })).headers.location,
      ).toBe('https://apps.apple.com/app/id1');
      expect((await visit(link.slug, { 'cf-ipcountry': 'de' })).headers.location).toBe('https://example.de/');
      expect((await visit(link.slug, { 'cf-ipcountry': 'FR' })).headers.location).toBe(
        'https://example.com/default',
      );
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/default');
    });

    it('serves the latest past schedule entry', async () => {
      const now = Math.floor(Date.now() / 1000);
      const link = await create({
        url: 'https://example.com/default',
        sched: [
          { from: now - 100, url: 'https://example.com/now' },
          { from: now + 86_400, url: 'https://example.com/tomorrow' },
        ],
      });
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/now');
    });

    it('splits A/B traffic by weight', async () => {
      const link = await create({
        url: 'https://example.com/default',
        ab: [
          { u: 'https://a.example/', w: 1 },
          { u: 'https://b.example/', w: 3 },
        ],
      });
      const counts = new Map<string, number>();
      for (let i = 0; i < 400; i++) {
        const location = String((await visit(link.slug)).headers.location);
        counts.set(location, (counts.get(location) ?? 0) + 1);
      }
      expect([...counts.keys()].sort()).toEqual(['https://a.example/', 'https://b.example/']);
      // 100 expected for a; 6 standard deviations (about 52) either way keeps this deterministic in practice.
      expect(counts.get('https://a.example/')).toBeGreaterThan(48);
      expect(counts.get('https://a.example/')).toBeLessThan(152);
    });

    it('an edit takes effect on the next visit (the cache is invalidated on write)', async () => {
      const link = await create({ url: 'https://example.com/before' });
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/before');
      await h.v1(key, {
        method: 'PATCH',
        url: `/v1/links/${link.id}`,
        payload: { url: 'https://example.com/after' },
      });
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/after');
    });

    it('a slug change frees the old path and serves the new one at once', async () => {
      const link = await create({ url: 'https://example.com/moved', slug: 'old-name' });
      expect((await visit('old-name')).statusCode).toBe(302);
      await h.v1(key, { method: 'PATCH', url: `/v1/links/${link.id}`, payload: { slug: 'new-name' } });
      expect((await visit('old-name')).statusCode).toBe(404);
      expect((await visit('new-name')).statusCode).toBe(302);
    });

    it('archived links keep redirecting', async () => {
      const link = await create({ url: 'https://example.com/archived' });
      await visit(link.slug);
      await h.v1(key, { method: 'POST', url: `/v1/links/${link.id}/archive` });
      const response = await visit(link.slug);
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('https://example.com/archived');
    });

    it('a custom hostname serves its own link; the default host does not', async () => {
      const link = await create({
        url: 'https://example.com/brand',
        slug: 'b1',
        hostname: 'go.brand.example',
      });
      expect((await visit(link.slug, {}, 'go.brand.example')).headers.location).toBe(
        'https://example.com/brand',
      );
      expect((await visit(link.slug)).statusCode).toBe(404);
    });

    describe('the password gate', () => {
      let slug: string;
      beforeAll(async () => {
        slug = (await create({ url: 'https://example.com/secret', password: 'open sesame' })).slug;
      });

      const submit = (password: string, ip = '10.0.0.1') =>
        h.app.inject({
          method: 'POST',
          url: `/${slug}`,
          headers: { host: 'lnk.example', 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ password }).toString(),
          remoteAddress: ip,
        });

      it('shows a small form instead of the destination, to people and bots alike', async () => {
        for (const userAgent of [UA.desktopChrome, UA.facebookPreview]) {
          const response = await visit(slug, { 'user-agent': userAgent });
          expect(response.statusCode).toBe(200);
          expect(response.body).toContain('<form method="post"');
          expect(response.body).not.toContain('example.com/secret');
          expect(response.headers['content-security-policy']).toContain("form-action 'self'");
        }
      });

      it('a wrong password is 401 with the form again', async () => {
        const response = await submit('wrong');
        expect(response.statusCode).toBe(401);
        expect(response.body).toContain('not right');
      });

      it('the right password sets a signed cookie for this link and the visit then redirects', async () => {
        const response = await submit('open sesame', '10.0.0.2');
        expect(response.statusCode).toBe(303);
        const cookie = String(response.headers['set-cookie']);
        expect(cookie).toMatch(/HttpOnly/);
        expect(cookie).toMatch(/SameSite=Lax/);
        expect(cookie).toMatch(/Secure/);
        const pair = cookie.split(';')[0] ?? '';
        const through = await visit(slug, { cookie: pair });
        expect(through.statusCode).toBe(302);
        expect(through.headers.location).toBe('https://example.com/secret');
        const forged = await visit(slug, { cookie: `${pair.split('=')[0]}=9999999999.forged` });
        expect(forged.statusCode).toBe(200);
      });

      it('attempts are limited per link and address', async () => {
        let last = 0;
        for (let i = 0; i < 11; i++) last = (await submit('guess', '10.0.0.9')).statusCode;
        expect(last).toBe(429);
        expect((await submit('open sesame', '10.0.0.9')).statusCode).toBe(429);
        expect((await submit('open sesame', '10.0.0.10')).statusCode).toBe(303);
      });
    });
  });
}
