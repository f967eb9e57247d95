import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';
import { type Receiver, startReceiver } from '../webhooks/setup.js';

/** Through the composed service: visits are recorded off the request path, a tap reports, the event goes out. */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `visits, taps and app.* events end to end on ${kind.name}`,
    () => {
      let h: HostedHarness;
      let receiver: Receiver;
      beforeAll(async () => {
        receiver = await startReceiver();
        h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      });
      afterAll(async () => {
        await h?.close();
        await receiver?.close();
      });

      it('records human visits (not bots), redeems a tap once, and sends app.opened with the tap context', async () => {
        const { apiKey } = await h.org('legend');
        await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/webhooks',
          payload: { url: `${receiver.url}/apps`, events: ['app.opened'] },
        });
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
            headers: { host: 'lnk.example', 'user-agent': userAgent, 'cf-ipcountry': 'FR' },
          });

        await visit(UA.desktopChrome);
        await visit(UA.facebookPreview);
        const page = await visit(UA.instagramAndroid);
        const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(page.body)?.[1];
        expect(token).toBeTruthy();

        const report = (body: string, type = 'text/plain') =>
          h.app.inject({
            method: 'POST',
            url: '/api/public/tap',
            headers: { 'content-type': type },
            payload: body,
          });
        expect((await report(JSON.stringify({ token, outcome: 'opened' }))).statusCode).toBe(204);
        expect(
          (await report(JSON.stringify({ token, outcome: 'broken' }), 'application/json')).statusCode,
        ).toBe(204);
        expect((await report('{not json')).statusCode).toBe(204);

        const stats = await eventually(
          async () => (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/stats` })).json(),
          (value) => value.total === 2 && value.outcomes.opened === 1,
        );
        expect(stats).toMatchObject({
          configured: true,
          total: 2,
          outcomes: { opened: 1, browser: 0, broken: 0 },
          appOpenRate: 1,
        });

        const delivered = await eventually(
          async () => receiver.receipts.filter((r) => r.path === '/apps'),
          (list) => list.length >= 1,
        );
        expect(delivered).toHaveLength(1);
        const envelope = JSON.parse(delivered[0]?.raw.toString('utf8') ?? '{}');
        expect(envelope.event).toBe('app.opened');
        expect(envelope.data).toMatchObject({
          slug: link.slug,
          shortHost: 'lnk.example',
          platformKey: 'youtube',
          sourceApp: 'instagram',
          country: 'FR',
          device: 'android',
        });
      });
    },
  );
}
