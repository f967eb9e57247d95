import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher, type GuardedFetcher } from '../../src/net/guarded-fetch.js';
import type { Store } from '../../src/store/database.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { createWebhookService, type WebhookService } from '../../src/webhooks/service.js';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/worker.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { MASTER_SECRET, type Receiver, secondStore, startReceiver, webhookStore } from './setup.js';

const silent = { warn: () => {}, error: () => {} };
const secretBox = createSecretBox({ current: MASTER_SECRET });

/** What a receiver does: verify the signature over the raw bytes, in constant time, before parsing. */
function verified(raw: Buffer, signature: string | undefined, secret: string): boolean {
  if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(Buffer.from(signature, 'hex'), expected);
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`webhook delivery on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: Store;
    let fetcher: GuardedFetcher;
    let receiver: Receiver;
    let webhooks: WebhookService;
    let worker: DeliveryWorker;
    let org: OrgContext;
    const makeWorker = (over: Partial<Parameters<typeof createDeliveryWorker>[0]> = {}) =>
      createDeliveryWorker({ store, fetcher, secretBox, now: () => new Date(), logger: silent, ...over });
    const subscribe = (path: string, events: Parameters<WebhookService['create']>[1]['events']) =>
      webhooks.create(org, { url: `${receiver.url}${path}`, events });
    const statuses = async () =>
      (
        await sql<{ status: string }>`select status from webhook_deliveries order by status`.execute(store.db)
      ).rows.map((row) => row.status);

    beforeAll(async () => {
      testStore = await webhookStore(kind);
      store = testStore.store;
      fetcher = createGuardedFetcher({ allowPrivate: true });
      receiver = await startReceiver();
      webhooks = createWebhookService({
        store,
        fetcher,
        secretBox,
        now: () => new Date(),
        uuid: randomUUID,
        allowPrivate: true,
      });
      worker = makeWorker();
    });
    beforeEach(async () => {
      org = await makeOrg(store, 'legend');
      receiver.receipts.length = 0;
      receiver.behaviour.clear();
      receiver.delayMs = 0;
      await sql`delete from webhook_deliveries`.execute(store.db);
    });
    afterAll(async () => {
      await receiver?.close();
      await fetcher?.close();
      await testStore?.dispose();
    });

    it('POSTs the envelope with the exact headers and a signature that verifies over the raw bytes', async () => {
      const hook = await subscribe('/signed', ['link.created']);
      const link = { id: randomUUID(), slug: 'launch', destination: 'https://example.com/ünï' };
      const before = Date.now();
      expect(await webhooks.emit(org.orgId, 'link.created', link)).toBe(1);
      await worker.drain();
      expect(receiver.receipts).toHaveLength(1);
      const [receipt] = receiver.receipts;
      if (!receipt) throw new Error('no receipt');
      expect(receipt.path).toBe('/signed');
      expect(receipt.headers['content-type']).toBe('application/json');
      expect(receipt.headers['x-service-event']).toBe('link.created');
      expect(receipt.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(verified(receipt.raw, receipt.headers['x-service-signature'] as string, hook.secret)).toBe(true);
      expect(verified(receipt.raw, receipt.headers['x-service-signature'] as string, `${hook.secret}x`)).toBe(
        false,
      );
      const body = JSON.parse(receipt.raw.toString('utf8'));
      expect(Object.keys(body)).toEqual(['event', 'ts', 'data']);
      expect(body).toEqual({ event: 'link.created', ts: expect.any(String), data: link });
      expect(new Date(body.ts).toISOString()).toBe(body.ts);
      expect(Date.parse(body.ts)).toBeGreaterThanOrEqual(before);
      expect(await statuses()).toEqual(['delivered']);
      const [listed] = await webhooks.list(org);
      expect(listed).toMatchObject({ failCount: 0, lastDeliveredAt: expect.any(String) });
    });

    it('a failing receiver raises failCount; a later success resets it and sets lastDeliveredAt', async () => {
      const hook = await subscribe('/flaky', ['link.updated']);
      receiver.behaviour.set('/flaky', 500);
      await webhooks.emit(org.orgId, 'link.updated', { n: 1 });
      await webhooks.emit(org.orgId, 'link.updated', { n: 2 });
      await worker.drain();
      expect(receiver.receipts).toHaveLength(2);
      expect(await webhooks.list(org)).toMatchObject([{ id: hook.id, failCount: 2, lastDeliveredAt: null }]);
      expect(await statuses()).toEqual(['failed', 'failed']);

      receiver.behaviour.set('/flaky', 204);
      await webhooks.emit(org.orgId, 'link.updated', { n: 3 });
      await worker.drain();
      expect(receiver.receipts).toHaveLength(3);
      expect(await webhooks.list(org)).toMatchObject([
        { failCount: 0, lastDeliveredAt: expect.any(String), active: true },
      ]);
      // Single attempt: the failed rows were not sent again.
      expect(receiver.receipts.map((r) => JSON.parse(r.raw.toString()).data.n)).toEqual([1, 2, 3]);
    });

    it('a receiver slower than the timeout counts as a failure', async () => {
      await subscribe('/hang', ['app.broken']);
      receiver.behaviour.set('/hang', 'hang');
      const impatient = makeWorker({ timeoutMs: 300 });
      const started = Date.now();
      await webhooks.emit(org.orgId, 'app.broken', { slug: 's' });
      await impatient.drain();
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(receiver.receipts).toHaveLength(1);
      expect(await webhooks.list(org)).toMatchObject([{ failCount: 1, lastDeliveredAt: null }]);
      expect(await statuses()).toEqual(['failed']);
    });

    it('only subscribed events are delivered, and every subscribed endpoint gets its copy', async () => {
      await subscribe('/created-only', ['link.created']);
      await subscribe('/both', ['link.created', 'link.updated']);
      await subscribe('/captures', ['contact.captured']);
      expect(await webhooks.emit(org.orgId, 'link.updated', { v: 'updated' })).toBe(1);
      expect(await webhooks.emit(org.orgId, 'link.created', { v: 'created' })).toBe(2);
      expect(await webhooks.emit(org.orgId, 'app.opened', { v: 'opened' })).toBe(0);
      await worker.drain();
      const got = receiver.receipts.map((r) => `${r.path} ${r.headers['x-service-event']}`).sort();
      expect(got).toEqual(['/both link.created', '/both link.updated', '/created-only link.created']);
      // Another organization's events never reach these endpoints.
      const other = await makeOrg(store, 'legend');
      expect(await webhooks.emit(other.orgId, 'link.created', {})).toBe(0);
    });

    it('a paused endpoint receives nothing, even for rows queued before the pause', async () => {
      const hook = await subscribe('/paused', ['link.archived']);
      await webhooks.emit(org.orgId, 'link.archived', { n: 1 });
      await webhooks.patch(org, hook.id, { active: false });
      expect(await webhooks.emit(org.orgId, 'link.archived', { n: 2 })).toBe(0);
      await worker.drain();
      expect(receiver.receipts).toEqual([]);
      expect(await statuses()).toEqual(['skipped']);
      expect(await webhooks.list(org)).toMatchObject([{ failCount: 0, active: false }]);

      await webhooks.patch(org, hook.id, { active: true });
      await webhooks.emit(org.orgId, 'link.archived', { n: 3 });
      await worker.drain();
      expect(receiver.receipts.map((r) => JSON.parse(r.raw.toString()).data.n)).toEqual([3]);
    });

    it('an organization whose plan lost webhooks queues nothing; deleting a webhook drops its rows', async () => {
      const hook = await subscribe('/gone', ['link.created']);
      await webhooks.emit(org.orgId, 'link.created', {});
      await webhooks.remove(org, hook.id);
      expect(await statuses()).toEqual([]);
      await subscribe('/downgraded', ['link.created']);
      await store.db.updateTable('organizations').set({ tier: 'hero' }).where('id', '=', org.orgId).execute();
      expect(await webhooks.emit(org.orgId, 'link.created', {})).toBe(0);
      await worker.drain();
      expect(receiver.receipts).toEqual([]);
    });

    it('start() delivers on its own and nudge() sends soon after an emit; stop() waits for the pass', async () => {
      await subscribe('/polled', ['app.opened']);
      const background = makeWorker({ intervalMs: 50 });
      background.start();
      try {
        await webhooks.emit(org.orgId, 'app.opened', { n: 1 });
        background.nudge();
        await expect.poll(() => receiver.receipts.length, { timeout: 5_000 }).toBe(1);
        await webhooks.emit(org.orgId, 'app.opened', { n: 2 });
        await expect.poll(() => receiver.receipts.length, { timeout: 5_000 }).toBe(2);
      } finally {
        await background.stop();
      }
      expect(await statuses()).toEqual(['delivered', 'delivered']);
    });

    it('a row whose sender died after stamping it is never sent again: it ends failed, uncounted', async () => {
      await subscribe('/crashed', ['link.created']);
      await webhooks.emit(org.orgId, 'link.created', { n: 1 });
      const past = new Date(Date.now() - 60_000).toISOString();
      await sql`update webhook_deliveries set claim_token = 'dead', claimed_until = ${past}, attempted_at = ${past}`.execute(
        store.db,
      );
      await makeWorker().drain();
      expect(receiver.receipts).toEqual([]);
      expect(await statuses()).toEqual(['failed']);
      expect(await webhooks.list(org)).toMatchObject([{ failCount: 0 }]);
    });

    it('a secret that cannot be decrypted sends nothing and is logged as our error', async () => {
      await subscribe('/rotated', ['link.created']);
      await webhooks.emit(org.orgId, 'link.created', {});
      const errors: string[] = [];
      const rotated = makeWorker({
        secretBox: createSecretBox({ current: 'a-different-master-secret-0000' }),
        logger: { warn: () => {}, error: (_details, message) => errors.push(message) },
      });
      await rotated.drain();
      expect(receiver.receipts).toEqual([]);
      expect(await statuses()).toEqual(['failed']);
      expect(errors).toEqual([expect.stringContaining('cannot be decrypted')]);
    });

    it('two workers on two connections draining at once deliver each row exactly once', async () => {
      await subscribe('/a', ['link.created', 'contact.captured']);
      await subscribe('/b', ['link.created']);
      const rows = 40;
      for (let n = 0; n < rows; n++) {
        await webhooks.emit(org.orgId, n % 2 ? 'link.created' : 'contact.captured', { n });
      }
      receiver.delayMs = 5;
      // SQLite is one writer per file, and a second connection in this process would block the event
      // loop on its busy wait: there the two workers share the connection. PostgreSQL gets a second pool.
      const other = kind.name === 'postgres' ? secondStore(testStore) : store;
      try {
        const first = makeWorker({ batchSize: 3 });
        const second = makeWorker({ store: other, batchSize: 3 });
        await Promise.all([first.drain(), second.drain(), first.drain()]);
      } finally {
        if (other !== store) await other.close();
      }
      const expected = rows + rows / 2;
      expect(receiver.receipts).toHaveLength(expected);
      const keys = receiver.receipts.map((r) => `${r.path}:${JSON.parse(r.raw.toString()).data.n}`);
      expect(new Set(keys).size).toBe(expected);
      expect((await statuses()).filter((s) => s === 'delivered')).toHaveLength(expected);
    });
  });
}
