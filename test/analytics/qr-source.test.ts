import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { decodeQrPng } from '../helpers/qr-decode.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';
import { type Receiver, startReceiver } from '../webhooks/setup.js';

/**
 * QR scans as a source (issue #33): a link's QR code encodes its short URL with a `?qr=1` marker; a
 * visit through it is recorded as `qr` and reported apart in every read, the marker never reaches the
 * destination, and a code made before the marker (the bare short URL) keeps working and counts as `link`.
 * The code is decoded from the PNG the API serves, with a QR decoder, and followed over real HTTP.
 */

const DESTINATION = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`QR scans as a source on ${kind.name}`, () => {
    let h: HostedHarness;
    let receiver: Receiver;
    let origin: string;
    let apiKey: string;
    let link: { id: string; slug: string; shortUrl: string };

    beforeAll(async () => {
      receiver = await startReceiver();
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      origin = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
      apiKey = (await h.org('legend')).apiKey;
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/apps`, events: ['app.opened'] },
      });
      link = (await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: DESTINATION } })).json();
    });
    afterAll(async () => {
      await h?.close();
      await receiver?.close();
    });

    /** Follows a scanned or typed address over real HTTP, on the service's own origin, without redirects. */
    const follow = (address: string, userAgent: string) => {
      const { pathname, search } = new URL(address);
      return fetch(`${origin}${pathname}${search}`, {
        redirect: 'manual',
        headers: { 'user-agent': userAgent },
      });
    };

    it('records scans of the PNG code as qr and typed visits as link, everywhere clicks are read', async () => {
      const png = await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/qr?format=png` });
      expect(png.statusCode).toBe(200);
      const scanned = decodeQrPng(png.rawPayload);
      expect(scanned).toBe(`${link.shortUrl}?qr=1`);
      const svg = await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/qr` });
      expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);

      // Two scans from a desktop camera app: a plain redirect, the marker stripped.
      for (let i = 0; i < 2; i++) {
        const response = await follow(scanned, UA.desktopChrome);
        expect(response.status).toBe(302);
        expect(response.headers.get('location')).toBe(DESTINATION);
      }
      // A scan opened in Instagram's browser: the escape page, whose tap reports as a QR visit.
      const page = await follow(scanned, UA.instagramAndroid);
      expect(page.status).toBe(200);
      const body = await page.text();
      expect(body).not.toContain('qr=1');
      const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(body)?.[1];
      expect(token).toBeTruthy();
      const report = await fetch(`${origin}/api/public/tap`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ token, outcome: 'opened' }),
      });
      expect(report.status).toBe(204);
      // The short URL itself, typed or tapped (and every QR code printed before the marker): link.
      const typed = await follow(link.shortUrl, UA.desktopChrome);
      expect(typed.status).toBe(302);
      // Other query parameters are not a marker; a bot's scan is never a click.
      expect((await follow(`${link.shortUrl}?qr=2&utm=x`, UA.desktopChrome)).status).toBe(302);
      expect((await follow(scanned, UA.facebookPreview)).status).toBe(302);

      const stats = await eventually(
        async () => (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/stats` })).json(),
        (value) => value.total === 5 && value.outcomes.opened === 1,
      );
      expect(stats).toMatchObject({ total: 5, sources: { link: 2, qr: 3 } });

      const analytics = (await h.v1(apiKey, { method: 'GET', url: '/v1/analytics?days=7' })).json();
      expect(analytics).toMatchObject({ total: 5, sources: { link: 2, qr: 3 } });
      const perLink = (
        await h.v1(apiKey, { method: 'GET', url: `/v1/analytics?days=7&linkId=${link.id}` })
      ).json();
      expect(perLink.sources).toEqual({ link: 2, qr: 3 });

      const clicks = (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/clicks` })).json();
      expect(clicks.clicks.map((click: { source: string }) => click.source).sort()).toEqual([
        'link',
        'link',
        'qr',
        'qr',
        'qr',
      ]);
      expect(clicks.clicks.find((click: { outcome: string }) => click.outcome === 'opened')?.source).toBe(
        'qr',
      );

      const csv = (await h.v1(apiKey, { method: 'GET', url: '/v1/analytics/export?days=7' })).body;
      const [header, ...rows] = csv.trim().split('\r\n');
      const column = header?.split(',').indexOf('source') ?? -1;
      expect(column).toBeGreaterThan(-1);
      expect(rows.map((row) => row.split(',')[column]).sort()).toEqual(['link', 'link', 'qr', 'qr', 'qr']);
      const json = (
        await h.v1(apiKey, { method: 'GET', url: '/v1/analytics/export?days=7&format=json' })
      ).json();
      expect(json.clicks.filter((click: { source: string }) => click.source === 'qr')).toHaveLength(3);

      // The webhook's tap context says the tap came from the QR code.
      const delivered = await eventually(
        async () => receiver.receipts.filter((r) => r.path === '/apps'),
        (list) => list.length >= 1,
      );
      const envelope = JSON.parse(delivered[0]?.raw.toString('utf8') ?? '{}');
      expect(envelope).toMatchObject({ event: 'app.opened', data: { slug: link.slug, source: 'qr' } });
    });

    it('a scan of a password link keeps its marker through the form, so the unlocked visit counts as qr', async () => {
      const locked = (
        await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://example.com/private', password: 'letmein1' },
        })
      ).json();
      const png = await h.v1(apiKey, { method: 'GET', url: `/v1/links/${locked.id}/qr?format=png` });
      const scanned = decodeQrPng(png.rawPayload);
      const form = await follow(scanned, UA.desktopChrome);
      expect(form.status).toBe(200);
      expect(await form.text()).toContain(`action="/${locked.slug}?qr=1"`);
      const { pathname, search } = new URL(scanned);
      const unlock = await fetch(`${origin}${pathname}${search}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA.desktopChrome },
        body: 'password=letmein1',
      });
      expect(unlock.status).toBe(303);
      expect(unlock.headers.get('location')).toBe(`/${locked.slug}?qr=1`);
      const cookie = String(unlock.headers.get('set-cookie')).split(';')[0] as string;
      const visit = await fetch(`${origin}/${locked.slug}?qr=1`, {
        redirect: 'manual',
        headers: { cookie, 'user-agent': UA.desktopChrome },
      });
      expect(visit.headers.get('location')).toBe('https://example.com/private');
      const stats = await eventually(
        async () => (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${locked.id}/stats` })).json(),
        (value) => value.total === 1,
      );
      expect(stats.sources).toEqual({ link: 0, qr: 1 });
    });
  });
}
