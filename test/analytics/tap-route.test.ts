import { createHmac, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnalyticsService } from '../../src/analytics/service.js';
import { createTapTokens, type TapIssue } from '../../src/analytics/write/tap-tokens.js';
import { createGuardedFetcher } from '../../src/net/guarded-fetch.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { createWebhookService } from '../../src/webhooks/service.js';
import { createDeliveryWorker } from '../../src/webhooks/worker.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { startReceiver } from '../webhooks/setup.js';
import {
  analyticsStore,
  buildApp,
  type Harness,
  makeHarness,
  makeOrg,
  NOW,
  SECRET,
  silent,
} from './setup.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`POST /api/public/tap on ${kind.name}`, () => {
    let testStore: TestStore;
    let h: Harness;
    let app: FastifyInstance;
    let issue: (over?: Partial<TapIssue>) => string;
    let linkId: string;
    let org: OrgContext;

    const storedOutcomes = async () =>
      (
        await sql<{
          tap_id: string;
          outcome: string;
        }>`select tap_id, outcome from tap_outcomes order by tap_id`.execute(testStore.store.db)
      ).rows;
    const post = (payload: unknown, contentType = 'application/json') =>
      app.inject({
        method: 'POST',
        url: '/api/public/tap',
        headers: { 'content-type': contentType },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });

    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      h = makeHarness(testStore.store);
      app = await buildApp(h.analytics);
      org = await makeOrg(testStore.store, 'legend');
      const link = await h.links.create(org, { url: 'https://www.youtube.com/watch?v=abc', slug: 'tapme' });
      linkId = link.id;
      issue = (over = {}) =>
        h.tapTokens.issue({
          tapId: randomUUID(),
          linkId: link.id,
          orgId: org.orgId,
          slug: 'tapme',
          shortHost: 'lnk.example',
          platformKey: 'youtube',
          sourceApp: 'instagram',
          country: 'DE',
          city: 'Berlin',
          device: 'ios',
          ts: new Date(NOW - 5000).toISOString(),
          variant: null,
          ...over,
        });
    });
    beforeEach(async () => {
      await sql`delete from tap_outcomes`.execute(testStore.store.db);
      h.emitted.length = 0;
    });
    afterAll(async () => {
      await app?.close();
      await testStore?.dispose();
    });

    it('a genuine JSON report: 204 without a body, stored, rollups updated, app.opened with the tap context', async () => {
      const tapId = randomUUID();
      const response = await post({ token: issue({ tapId }), outcome: 'opened' });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(await storedOutcomes()).toEqual([{ tap_id: tapId, outcome: 'opened' }]);
      expect(h.emitted).toEqual([
        {
          orgId: expect.any(String),
          event: 'app.opened',
          data: {
            slug: 'tapme',
            shortHost: 'lnk.example',
            platformKey: 'youtube',
            sourceApp: 'instagram',
            country: 'DE',
            city: 'Berlin',
            device: 'ios',
            ts: new Date(NOW - 5000).toISOString(),
          },
        },
      ]);
      const stats = await h.analytics.linkStats(org, linkId);
      expect(stats.outcomes).toEqual({ opened: 1, browser: 0, broken: 0 });
    });

    it('text/plain holding JSON (navigator.sendBeacon) is accepted; browser and broken emit their events', async () => {
      expect(
        (await post(JSON.stringify({ token: issue(), outcome: 'browser' }), 'text/plain;charset=UTF-8'))
          .statusCode,
      ).toBe(204);
      expect((await post({ token: issue(), outcome: 'broken' })).statusCode).toBe(204);
      expect((await storedOutcomes()).map((row) => row.outcome).sort()).toEqual(['broken', 'browser']);
      expect(h.emitted.map((e) => e.event).sort()).toEqual(['app.broken', 'app.browser']);
    });

    it('replayed: the first outcome wins, the replay is 204 and changes nothing', async () => {
      const token = issue();
      expect((await post({ token, outcome: 'broken' })).statusCode).toBe(204);
      expect((await post({ token, outcome: 'opened' })).statusCode).toBe(204);
      expect((await post({ token, outcome: 'broken' })).statusCode).toBe(204);
      expect((await storedOutcomes()).map((row) => row.outcome)).toEqual(['broken']);
      expect(h.emitted).toHaveLength(1);
    });

    it('replayed on another instance (its own memory guard): the store still keeps only the first', async () => {
      const token = issue();
      const elsewhere = createAnalyticsService({
        store: testStore.store,
        analytics: true,
        links: h.links,
        tapTokens: createTapTokens({ secret: SECRET, now: () => NOW }),
        emitEvent: async (orgId, event, data) => {
          h.emitted.push({ orgId, event, data });
        },
        now: () => new Date(NOW),
      });
      expect(await h.analytics.recordOutcome(token, 'opened')).toBe(true);
      expect(await elsewhere.recordOutcome(token, 'browser')).toBe(false);
      expect((await storedOutcomes()).map((row) => row.outcome)).toEqual(['opened']);
      expect(h.emitted).toHaveLength(1);
    });

    it('forged, expired and malformed reports: always 204, nothing stored, nothing emitted', async () => {
      const genuine = issue();
      const [payload, signature] = genuine.split('.') as [string, string];
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString());
      fields[3] = randomUUID();
      const forged = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`;
      const wrongKey = `${payload}.${createHmac('sha256', 'not-the-secret').update(payload).digest('base64url')}`;
      const expired = createTapTokens({ secret: SECRET, now: () => NOW - 601_000 }).issue({
        tapId: randomUUID(),
        linkId,
        orgId: randomUUID(),
        slug: 'tapme',
        shortHost: 'lnk.example',
        platformKey: null,
        sourceApp: null,
        country: null,
        city: null,
        device: null,
        ts: new Date(NOW - 601_000).toISOString(),
      });
      const bodies: [unknown, string?][] = [
        [{ token: forged, outcome: 'opened' }],
        [{ token: wrongKey, outcome: 'opened' }],
        [{ token: expired, outcome: 'opened' }],
        [{ token: genuine, outcome: 'exploded' }],
        [{ token: genuine }],
        [{ outcome: 'opened' }],
        [{ token: 42, outcome: 'opened' }],
        [[genuine, 'opened']],
        ['null'],
        ['{not json', 'text/plain'],
        ['{not json'],
        ['', 'text/plain'],
        [`token=${genuine}&outcome=opened`, 'application/x-www-form-urlencoded'],
        [JSON.stringify({ token: genuine, outcome: 'opened', pad: 'x'.repeat(10_000) })],
      ];
      for (const [body, type] of bodies) {
        const response = await post(body, type);
        expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(204);
        expect(response.body).toBe('');
      }
      const empty = await app.inject({ method: 'POST', url: '/api/public/tap' });
      expect(empty.statusCode).toBe(204);
      expect(await storedOutcomes()).toEqual([]);
      expect(h.emitted).toEqual([]);
      // A garbled outcome never burnt the genuine token: its real report still counts.
      expect((await post({ token: genuine, outcome: 'opened' })).statusCode).toBe(204);
      expect(await storedOutcomes()).toHaveLength(1);
    });

    it('ANALYTICS=off: nothing stored, but the app.* event still goes out once', async () => {
      const off = makeHarness(testStore.store, { analytics: false });
      const token = issue();
      expect(await off.analytics.recordOutcome(token, 'opened')).toBe(true);
      expect(await off.analytics.recordOutcome(token, 'opened')).toBe(false);
      expect(off.emitted.map((e) => e.event)).toEqual(['app.opened']);
      expect(await storedOutcomes()).toEqual([]);
    });

    it('the app.* event reaches a real webhook receiver, signed, with the tap context', async () => {
      const receiver = await startReceiver();
      const fetcher = createGuardedFetcher({ allowPrivate: true });
      const secretBox = createSecretBox({ current: 'analytics-webhook-master-secret-0123' });
      const webhooks = createWebhookService({
        store: testStore.store,
        fetcher,
        secretBox,
        now: () => new Date(),
        uuid: randomUUID,
        allowPrivate: true,
      });
      const worker = createDeliveryWorker({
        store: testStore.store,
        fetcher,
        secretBox,
        now: () => new Date(),
        logger: silent,
      });
      try {
        const owner = await makeOrg(testStore.store, 'legend');
        const link = await h.links.create(owner, { url: 'https://open.spotify.com/track/1', slug: 'hooked' });
        const hook = await webhooks.create(owner, { url: `${receiver.url}/taps`, events: ['app.broken'] });
        const service = createAnalyticsService({
          store: testStore.store,
          analytics: true,
          links: h.links,
          tapTokens: h.tapTokens,
          emitEvent: async (orgId, event, data) => {
            await webhooks.emit(orgId, event, data);
          },
          now: () => new Date(NOW),
        });
        const token = h.tapTokens.issue({
          tapId: randomUUID(),
          linkId: link.id,
          orgId: owner.orgId,
          slug: 'hooked',
          shortHost: 'go.brand.example',
          platformKey: 'spotify',
          sourceApp: 'tiktok',
          country: 'FR',
          city: null,
          device: 'android',
          ts: new Date(NOW - 1000).toISOString(),
        });
        expect(await service.recordOutcome(token, 'broken')).toBe(true);
        await worker.drain();
        expect(receiver.receipts).toHaveLength(1);
        const [receipt] = receiver.receipts;
        expect(receipt?.headers['x-service-event']).toBe('app.broken');
        const signature = createHmac('sha256', hook.secret)
          .update(receipt?.raw ?? Buffer.alloc(0))
          .digest('hex');
        expect(receipt?.headers['x-service-signature']).toBe(signature);
        expect(JSON.parse(receipt?.raw.toString() ?? '{}')).toEqual({
          event: 'app.broken',
          ts: expect.any(String),
          data: {
            slug: 'hooked',
            shortHost: 'go.brand.example',
            platformKey: 'spotify',
            sourceApp: 'tiktok',
            country: 'FR',
            city: null,
            device: 'android',
            ts: new Date(NOW - 1000).toISOString(),
          },
        });
      } finally {
        await worker.stop();
        await fetcher.close();
        await receiver.close();
      }
    });
  });
}
