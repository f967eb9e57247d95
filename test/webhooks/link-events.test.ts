import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { type Receiver, startReceiver } from './setup.js';

/** The whole path: a /v1 write, the outbox, the worker, a signed POST to a real receiver. */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`link events reach webhooks on ${kind.name}`, () => {
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

    async function waitFor(count: number, path: string) {
      for (let i = 0; i < 200; i++) {
        if (receiver.receipts.filter((r) => r.path === path).length >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`expected ${count} deliveries at ${path}`);
    }

    it('link.created, link.updated and link.archived arrive signed, with the Link as data', async () => {
      const { apiKey } = await h.org('legend');
      const created = await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/links`, events: ['link.created', 'link.updated', 'link.archived'] },
      });
      expect(created.statusCode).toBe(201);
      const { secret } = created.json();

      const link = (
        await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com/e' } })
      ).json();
      await h.v1(apiKey, { method: 'PATCH', url: `/v1/links/${link.id}`, payload: { tags: ['t'] } });
      await h.v1(apiKey, { method: 'POST', url: `/v1/links/${link.id}/archive` });
      await waitFor(3, '/links');

      const deliveries = receiver.receipts.filter((r) => r.path === '/links');
      expect(deliveries.map((d) => d.headers['x-service-event'])).toEqual([
        'link.created',
        'link.updated',
        'link.archived',
      ]);
      for (const delivery of deliveries) {
        expect(delivery.headers['content-type']).toBe('application/json');
        const expected = createHmac('sha256', secret).update(delivery.raw).digest();
        const given = Buffer.from(String(delivery.headers['x-service-signature']), 'hex');
        expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);
        const envelope = JSON.parse(delivery.raw.toString('utf8'));
        expect(Object.keys(envelope).sort()).toEqual(['data', 'event', 'ts']);
        expect(envelope.data.id).toBe(link.id);
        expect(envelope.data.shortUrl).toBe(link.shortUrl);
      }
      const [, updated] = deliveries.map((d) => JSON.parse(d.raw.toString('utf8')));
      expect(updated.data.tags).toEqual(['t']);
    });

    it('bulk creates emit one link.created per link', async () => {
      const { apiKey } = await h.org('legend');
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/bulk`, events: ['link.created'] },
      });
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links/bulk',
        payload: {
          links: [{ url: 'https://example.com/1' }, { url: 'bad' }, { url: 'https://example.com/3' }],
        },
      });
      await waitFor(2, '/bulk');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.receipts.filter((r) => r.path === '/bulk')).toHaveLength(2);
    });
  });
}
