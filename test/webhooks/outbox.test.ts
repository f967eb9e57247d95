import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { createAudienceService } from '../../src/audience/service.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { createLinkRepo } from '../../src/links/repo.js';
import { createLinkService } from '../../src/links/service.js';
import { createGuardedFetcher, type GuardedFetcher } from '../../src/net/guarded-fetch.js';
import type { Store } from '../../src/store/database.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { createWebhookService, type EventOutbox, type WebhookService } from '../../src/webhooks/service.js';
import { createDeliveryWorker } from '../../src/webhooks/worker.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { MASTER_SECRET, type Receiver, secondStore, startReceiver, webhookStore } from './setup.js';

/**
 * The outbox guarantee (issue 16, item 4): an event's delivery rows commit in the same transaction as the
 * change that causes it. Chosen guarantee: both or neither. When the fan-out fails, the change is rolled
 * back and the call fails; a committed change always has its rows, which any worker later sends, even
 * when the process died before nudging its own.
 */
const silent = { warn: () => {}, error: () => {} };
const secretBox = createSecretBox({ current: MASTER_SECRET });

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `event outbox in the change's transaction on ${kind.name}`,
    () => {
      let testStore: TestStore;
      let store: Store;
      let fetcher: GuardedFetcher;
      let receiver: Receiver;
      let webhooks: WebhookService;
      let org: OrgContext;
      let nudges: number;
      /** When set, the fan-out fails after writing its rows, inside the transaction. */
      let failFanOut: boolean;

      const outbox: EventOutbox = {
        async emitIn(trx, orgId, event, data) {
          const queued = await webhooks.emitIn(trx, orgId, event, data);
          if (failFanOut) throw new Error('fan-out failed');
          return queued;
        },
        nudge: () => {
          nudges++;
        },
      };
      const links = () =>
        createLinkService({
          repo: createLinkRepo(store),
          table: createPlatformTable(),
          baseUrl: 'https://lnk.example',
          now: () => new Date(),
          uuid: randomUUID,
          randomBytes: (size) => randomBytes(size),
          invalidate: () => {},
          events: outbox,
          reapplyLinkCap: async () => {},
        });
      const audience = () =>
        createAudienceService({
          store,
          now: () => new Date(),
          uuid: randomUUID,
          flagsOff: new Set(),
          events: outbox,
        });
      const deliveries = async () =>
        (
          await sql<{
            event: string;
            payload: string;
          }>`select event, payload from webhook_deliveries where org_id = ${org.orgId} order by created_at`.execute(
            store.db,
          )
        ).rows;
      const linkRows = () =>
        store.db.selectFrom('links').selectAll().where('org_id', '=', org.orgId).execute();

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
      });
      beforeEach(async () => {
        org = await makeOrg(store, 'legend');
        nudges = 0;
        failFanOut = false;
        receiver.receipts.length = 0;
        // Earlier tests' rows are never sent (no worker runs there): the outbox starts empty for each test.
        await sql`delete from webhook_deliveries`.execute(store.db);
        await webhooks.create(org, {
          url: `${receiver.url}/hook`,
          events: ['link.created', 'link.updated', 'link.archived', 'contact.captured'],
        });
      });
      afterAll(async () => {
        await receiver?.close();
        await fetcher?.close();
        await testStore?.dispose();
      });

      it('after commit the link and its event rows are both there, and the worker is nudged once per write', async () => {
        const service = links();
        const link = await service.create(org, { url: 'https://example.com/a' });
        await service.update(org, link.id, { url: 'https://example.com/b' });
        await service.archive(org, link.id);
        const rows = await deliveries();
        expect(rows.map((row) => row.event)).toEqual(['link.created', 'link.updated', 'link.archived']);
        // The payload is the link as the API presents it, as before.
        expect(JSON.parse(rows[0]?.payload ?? '')).toEqual(link);
        expect(JSON.parse(rows[1]?.payload ?? '').destination).toBe('https://example.com/b');
        expect(nudges).toBe(3);
      });

      it('a fan-out failing inside the transaction rolls the link write back: neither is kept', async () => {
        const service = links();
        failFanOut = true;
        await expect(service.create(org, { url: 'https://example.com/lost' })).rejects.toThrow(
          'fan-out failed',
        );
        expect(await linkRows()).toEqual([]);
        expect(await deliveries()).toEqual([]);

        failFanOut = false;
        const link = await service.create(org, { url: 'https://example.com/kept' });
        failFanOut = true;
        await expect(service.update(org, link.id, { url: 'https://example.com/changed' })).rejects.toThrow(
          'fan-out failed',
        );
        expect((await linkRows()).map((row) => row.destination)).toEqual(['https://example.com/kept']);
        expect((await deliveries()).map((row) => row.event)).toEqual(['link.created']);
        expect(nudges).toBe(1);
      });

      it('contact.captured commits with the contact, or neither does', async () => {
        const service = links();
        await service.create(org, { url: 'https://example.com/promo', slug: `p${randomUUID().slice(0, 8)}` });
        const [link] = await linkRows();
        await store.db
          .updateTable('links')
          .set({ capture_emails: 1 })
          .where('id', '=', link?.id ?? '')
          .execute();
        const capture = (email: string) =>
          audience().capture({ slug: link?.slug ?? '', email, consent: true, website: '', country: 'FR' });
        const contacts = () =>
          audienceDb(store).selectFrom('contacts').select('email').where('org_id', '=', org.orgId).execute();

        failFanOut = true;
        await expect(capture('lost@example.com')).rejects.toThrow('fan-out failed');
        expect(await contacts()).toEqual([]);
        expect((await deliveries()).map((row) => row.event)).toEqual(['link.created']);

        failFanOut = false;
        expect(await capture('kept@example.com')).toBe(true);
        expect(await contacts()).toEqual([{ email: 'kept@example.com' }]);
        const rows = await deliveries();
        expect(rows.map((row) => row.event)).toEqual(['link.created', 'contact.captured']);
        expect(JSON.parse(rows[1]?.payload ?? '')).toMatchObject({
          email: 'kept@example.com',
          country: 'FR',
        });
        // A repeat email is refused by the unique constraint: no second row, no second event.
        expect(await capture('kept@example.com')).toBe(false);
        expect(await deliveries()).toHaveLength(2);
      });

      it('a process that dies right after the commit, before nudging, loses nothing: a fresh worker sends it', async () => {
        // The nudge is all that a crash after commit could lose; here it never reaches any worker.
        const link = await links().create(org, { url: 'https://example.com/crash' });
        expect(receiver.receipts).toHaveLength(0);
        // Another instance (its own connection pool) starts later and drains the outbox.
        const other = secondStore(testStore);
        try {
          const fresh = createDeliveryWorker({
            store: other,
            fetcher,
            secretBox,
            now: () => new Date(),
            logger: silent,
          });
          await fresh.drain();
        } finally {
          await other.close();
        }
        expect(receiver.receipts).toHaveLength(1);
        const body = JSON.parse(receiver.receipts[0]?.raw.toString('utf8') ?? '');
        expect(body.event).toBe('link.created');
        expect(body.data).toEqual(link);
      });
    },
  );
}
