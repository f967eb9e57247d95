import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTapTokens } from '../../src/analytics/write/tap-tokens.js';
import { eventually } from '../helpers/eventually.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Through the composed hosted service: an escape page's tap token and its click carry the strategy the
 * page used, the beacon's outcome lands in the same cell, and GET /v1/analytics/escape shows it.
 */

const SESSION_SECRET = 'test-session-secret-0123456789abcdef';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`escape cells through the hosted service on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => h?.close());

    it('is in the OpenAPI document, for /v1 and the dashboard, with its response schema', async () => {
      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.paths['/v1/analytics/escape']?.get?.operationId).toBe('getEscapeCells');
      expect(doc.paths['/api/analytics/escape']?.get?.operationId).toBe('dashboardGetEscapeCells');
      const params = doc.paths['/v1/analytics/escape'].get.parameters.map((p: { name: string }) => p.name);
      expect(params.sort()).toEqual(['days', 'folderId', 'linkId', 'tag']);
      const schema = doc.components.schemas.EscapeCells;
      expect(Object.keys(schema.properties.cells.items.properties).sort()).toEqual(
        ['broken', 'browser', 'inApp', 'openRate', 'opened', 'os', 'platform', 'strategy', 'taps'].sort(),
      );
    });

    it('counts each tap and its outcome in its cell, with the strategy its page used', async () => {
      const { apiKey } = await h.org('legend');
      const link = (
        await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
        })
      ).json();
      const visit = (userAgent: string) =>
        h.app.inject({
          method: 'GET',
          url: `/${link.slug}`,
          headers: { host: 'lnk.example', 'user-agent': userAgent },
        });
      const tokens = createTapTokens({ secret: SESSION_SECRET });
      const report = (token: string, outcome: string) =>
        h.app.inject({
          method: 'POST',
          url: '/api/public/tap',
          headers: { 'content-type': 'text/plain' },
          payload: JSON.stringify({ token, outcome }),
        });

      expect((await visit(UA.desktopChrome)).statusCode).toBe(302);
      const pages = [
        await visit(UA.instagramIos),
        await visit(UA.instagramIos),
        await visit(UA.instagramAndroid),
      ];
      const taps = pages.map((page) => {
        expect(page.statusCode).toBe(200);
        const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(page.body)?.[1] as string;
        const tap = tokens.verify(token);
        expect(tap).not.toBeNull();
        return { token, strategy: tap?.strategy, sourceApp: tap?.sourceApp, device: tap?.device };
      });
      const [ios, , android] = taps as [(typeof taps)[0], (typeof taps)[0], (typeof taps)[0]];
      expect(ios).toMatchObject({ sourceApp: 'instagram', device: 'ios' });
      expect(android).toMatchObject({ sourceApp: 'instagram', device: 'android' });
      // Whatever the matrix picks for these cells, it is a real hand-off here (YouTube has both apps).
      expect(ios.strategy).toMatch(/^(scheme|x-safari|universal)$/);
      expect(android.strategy).toBe('intent');
      expect((await report(ios.token, 'opened')).statusCode).toBe(204);
      expect((await report(android.token, 'broken')).statusCode).toBe(204);

      const body = await eventually(
        async () => (await h.v1(apiKey, { method: 'GET', url: '/v1/analytics/escape?days=7' })).json(),
        (value) => value.cells?.reduce((sum: number, c: { taps: number }) => sum + c.taps, 0) === 3,
      );
      expect(body.cells).toEqual([
        {
          inApp: 'instagram',
          os: 'ios',
          platform: 'youtube',
          strategy: ios.strategy,
          taps: 2,
          opened: 1,
          browser: 0,
          broken: 0,
          openRate: 0.5,
        },
        {
          inApp: 'instagram',
          os: 'android',
          platform: 'youtube',
          strategy: 'intent',
          taps: 1,
          opened: 0,
          browser: 0,
          broken: 1,
          openRate: 0,
        },
      ]);
    });
  });
}
