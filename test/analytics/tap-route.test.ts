import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnalyticsService } from '../../src/analytics/service.js';
import { createTapTokens, type TapIssue } from '../../src/analytics/write/tap-tokens.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { type Receiver, startReceiver } from '../webhooks/setup.js';
import { ctxOf, type Harness, makeHarness, SECRET } from './setup.js';

/**
 * The beacon as the hosted service serves it (startHosted with SESSION_SECRET=SECRET, on the system clock,
 * which its tap tokens read). The organization is on Legend with a webhook for the app.* events, so every
 * event an outcome emits is a row in the real outbox (webhook_deliveries).
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`POST /api/public/tap on ${kind.name}`, () => {
    let hosted: HostedHarness;
    let testStore: TestStore;
    let receiver: Receiver;
    let h: Harness;
    let issue: (over?: Partial<TapIssue>) => string;
    let linkId: string;
    let org: OrgContext;
    let apiKey: string;
    /** The tap's moment: tokens live ten minutes on the service's (system) clock. */
    const T = Date.now();
    const tapTokens = createTapTokens({ secret: SECRET });
    /** The app.* events queued in the outbox, oldest first, as the organization, event and data sent. */
    const emitted = async () =>
      (
        await testStore.store.db
          .selectFrom('webhook_deliveries')
          .select(['org_id', 'event', 'payload'])
          .where('event', 'like', 'app.%')
          .orderBy('created_at', 'asc')
          .execute()
      ).map((row) => ({ orgId: row.org_id, event: row.event, data: JSON.parse(row.payload) as unknown }));

    const storedOutcomes = async () =>
      (
        await sql<{
          tap_id: string;
          outcome: string;
        }>`select tap_id, outcome from tap_outcomes order by tap_id`.execute(testStore.store.db)
      ).rows;
    const post = (payload: unknown, contentType = 'application/json') =>
      hosted.app.inject({
        method: 'POST',
        url: '/api/public/tap',
        headers: { 'content-type': contentType },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });

    beforeAll(async () => {
      receiver = await startReceiver();
      hosted = await startHosted(kind, {
        ANALYTICS: 'on',
        SESSION_SECRET: SECRET,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      });
      testStore = hosted.testStore;
      h = makeHarness(testStore.store);
      const owner = await hosted.owner('legend');
      apiKey = owner.apiKey;
      org = ctxOf(owner.orgId, 'legend');
      const hook = await hosted.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/taps`, events: ['app.opened', 'app.browser', 'app.broken'] },
      });
      if (hook.statusCode !== 201) throw new Error(`webhook not created: ${hook.body}`);
      const link = await h.links.create(org, { url: 'https://www.youtube.com/watch?v=abc', slug: 'tapme' });
      linkId = link.id;
      issue = (over = {}) =>
        tapTokens.issue({
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
          ts: new Date(T - 5000).toISOString(),
          variant: null,
          ...over,
        });
    });
    beforeEach(async () => {
      await sql`delete from tap_outcomes`.execute(testStore.store.db);
      await sql`delete from webhook_deliveries`.execute(testStore.store.db);
    });
    afterAll(async () => {
      await hosted?.close();
      await receiver?.close();
    });

    it('a genuine JSON report: 204 without a body, stored, rollups updated, app.opened with the tap context', async () => {
      const tapId = randomUUID();
      const response = await post({ token: issue({ tapId }), outcome: 'opened' });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(await storedOutcomes()).toEqual([{ tap_id: tapId, outcome: 'opened' }]);
      expect(await emitted()).toEqual([
        {
          orgId: org.orgId,
          event: 'app.opened',
          data: {
            slug: 'tapme',
            shortHost: 'lnk.example',
            platformKey: 'youtube',
            sourceApp: 'instagram',
            country: 'DE',
            city: 'Berlin',
            device: 'ios',
            ts: new Date(T - 5000).toISOString(),
            source: 'link',
          },
        },
      ]);
      const stats = (await hosted.v1(apiKey, { method: 'GET', url: `/v1/links/${linkId}/stats` })).json();
      expect(stats.outcomes).toEqual({ opened: 1, browser: 0, broken: 0 });
    });

    it('text/plain holding JSON (navigator.sendBeacon) is accepted; browser and broken emit their events', async () => {
      expect(
        (await post(JSON.stringify({ token: issue(), outcome: 'browser' }), 'text/plain;charset=UTF-8'))
          .statusCode,
      ).toBe(204);
      expect((await post({ token: issue(), outcome: 'broken' })).statusCode).toBe(204);
      expect((await storedOutcomes()).map((row) => row.outcome).sort()).toEqual(['broken', 'browser']);
      expect((await emitted()).map((e) => e.event).sort()).toEqual(['app.broken', 'app.browser']);
    });

    it('replayed: the first outcome wins, the replay is 204 and changes nothing', async () => {
      const token = issue();
      expect((await post({ token, outcome: 'broken' })).statusCode).toBe(204);
      expect((await post({ token, outcome: 'opened' })).statusCode).toBe(204);
      expect((await post({ token, outcome: 'broken' })).statusCode).toBe(204);
      expect((await storedOutcomes()).map((row) => row.outcome)).toEqual(['broken']);
      expect(await emitted()).toHaveLength(1);
    });

    it('replayed on another instance (its own memory guard): the store still keeps only the first', async () => {
      const token = issue();
      const emittedElsewhere: unknown[] = [];
      const elsewhere = createAnalyticsService({
        store: testStore.store,
        analytics: true,
        links: h.links,
        tapTokens: createTapTokens({ secret: SECRET }),
        emitEvent: async (orgId, event, data) => {
          emittedElsewhere.push({ orgId, event, data });
        },
        now: () => new Date(),
      });
      expect((await post({ token, outcome: 'opened' })).statusCode).toBe(204);
      expect(await elsewhere.recordOutcome(token, 'browser')).toBe(false);
      expect((await storedOutcomes()).map((row) => row.outcome)).toEqual(['opened']);
      expect([...(await emitted()), ...emittedElsewhere]).toHaveLength(1);
    });

    it('forged, expired and malformed reports: always 204, nothing stored, nothing emitted', async () => {
      const genuine = issue();
      const [payload, signature] = genuine.split('.') as [string, string];
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString());
      fields[3] = randomUUID();
      const forged = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`;
      const wrongKey = `${payload}.${createHmac('sha256', 'not-the-secret').update(payload).digest('base64url')}`;
      const expired = createTapTokens({ secret: SECRET, now: () => Date.now() - 601_000 }).issue({
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
        ts: new Date(T - 601_000).toISOString(),
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
      const empty = await hosted.app.inject({ method: 'POST', url: '/api/public/tap' });
      expect(empty.statusCode).toBe(204);
      expect(await storedOutcomes()).toEqual([]);
      expect(await emitted()).toEqual([]);
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
      const hook = await hosted.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/hooked`, events: ['app.broken'] },
      });
      expect(hook.statusCode).toBe(201);
      const link = await h.links.create(org, { url: 'https://open.spotify.com/track/1', slug: 'hooked' });
      const token = tapTokens.issue({
        tapId: randomUUID(),
        linkId: link.id,
        orgId: org.orgId,
        slug: 'hooked',
        shortHost: 'go.brand.example',
        platformKey: 'spotify',
        sourceApp: 'tiktok',
        country: 'FR',
        city: null,
        device: 'android',
        ts: new Date(T - 1000).toISOString(),
      });
      expect((await post({ token, outcome: 'broken' })).statusCode).toBe(204);
      // The service's own delivery worker sends it.
      const hooked = () => receiver.receipts.filter((r) => r.path === '/hooked');
      for (let waited = 0; hooked().length === 0 && waited < 10_000; waited += 25)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(hooked()).toHaveLength(1);
      const [receipt] = hooked();
      expect(receipt?.headers['x-service-event']).toBe('app.broken');
      const signature = createHmac('sha256', hook.json().secret)
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
          ts: new Date(T - 1000).toISOString(),
          source: 'link',
        },
      });
    });
  });
}
