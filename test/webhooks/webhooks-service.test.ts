import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetcher, type GuardedFetcher } from '../../src/net/guarded-fetch.js';
import type { Store } from '../../src/store/database.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { createWebhookService, type WebhookService } from '../../src/webhooks/service.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { MASTER_SECRET, webhookStore } from './setup.js';

// Public-only fetcher with a fake DNS: no network needed, and the real address rules apply.
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'other.example.com': ['93.184.216.35'],
  'internal.example.com': ['10.1.2.3'],
};
const lookup = async (host: string) => {
  const found = DNS[host];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`webhook subscriptions on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: Store;
    let fetcher: GuardedFetcher;
    let webhooks: WebhookService;
    const secretBox = createSecretBox({ current: MASTER_SECRET });
    const input = (path = 'hook') => ({
      url: `https://hooks.example.com/${path}`,
      events: ['link.created' as const],
    });

    beforeAll(async () => {
      testStore = await webhookStore(kind);
      store = testStore.store;
      fetcher = createGuardedFetcher({ allowPrivate: false, lookup });
      webhooks = createWebhookService({
        store,
        fetcher,
        secretBox,
        now: () => new Date(),
        uuid: randomUUID,
        allowPrivate: false,
      });
    });
    afterAll(async () => {
      await fetcher?.close();
      await testStore?.dispose();
    });

    it('creates: the secret is shown once, stored only encrypted, and never listed again', async () => {
      const org = await makeOrg(store, 'legend');
      const created = await webhooks.create(org, {
        url: 'https://hooks.example.com/in',
        events: ['link.created', 'app.opened'],
      });
      expect(created).toEqual({
        id: expect.any(String),
        url: 'https://hooks.example.com/in',
        events: ['link.created', 'app.opened'],
        active: true,
        failCount: 0,
        lastDeliveredAt: null,
        createdAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
        note: expect.stringContaining('shown only once'),
      });
      const { secret, note: _note, ...shown } = created;
      const listed = await webhooks.list(org);
      expect(listed).toEqual([shown]);
      expect(JSON.stringify(listed)).not.toContain(secret);
      const patched = await webhooks.patch(org, created.id, { events: ['link.updated'] });
      expect(JSON.stringify(patched)).not.toContain(secret);
      expect(patched).not.toHaveProperty('secret');

      const { rows } = await sql<{ secret_ciphertext: string }>`
        select * from webhooks where id = ${created.id}`.execute(store.db);
      const rawText = JSON.stringify(rows);
      expect(rows).toHaveLength(1);
      expect(rawText).not.toContain(secret);
      expect(rawText).not.toContain(secret.slice(6));
      const ciphertext = rows[0]?.secret_ciphertext ?? '';
      expect(secretBox.decrypt(ciphertext, created.id)).toBe(secret);
    });

    it('caps an organization at 5 webhooks, even when creates race', async () => {
      const org = await makeOrg(store, 'legend');
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => webhooks.create(org, input(`race-${i}`))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      for (const result of results.filter((r) => r.status === 'rejected')) {
        expect((result as PromiseRejectedResult).reason).toMatchObject({
          code: 'too_many_webhooks',
          status: 409,
        });
      }
      expect(await webhooks.list(org)).toHaveLength(5);
      // Another organization is unaffected, and deleting one frees a slot.
      const other = await makeOrg(store, 'legend');
      await expect(webhooks.create(other, input())).resolves.toMatchObject({ active: true });
      const [first] = await webhooks.list(org);
      await webhooks.remove(org, first?.id ?? '');
      await expect(webhooks.create(org, input('again'))).resolves.toMatchObject({ active: true });
    });

    it.each([
      ['http://hooks.example.com/x', /https:\/\//],
      ['https://127.0.0.1/x', /publicly reachable/],
      ['https://localhost:8443/x', /publicly reachable/],
      ['https://[::1]/x', /publicly reachable/],
      ['https://10.0.0.7/x', /publicly reachable/],
      ['https://192.168.1.10/x', /publicly reachable/],
      ['https://169.254.169.254/latest/meta-data', /publicly reachable/],
      ['https://internal.example.com/x', /publicly reachable/],
      ['https://nowhere.invalid/x', /could not be resolved/],
    ])('refuses %s with 400 invalid_webhook_url', async (url, message) => {
      const org = await makeOrg(store, 'legend');
      const attempt = webhooks.create(org, { url, events: ['link.created'] });
      await expect(attempt).rejects.toMatchObject({ code: 'invalid_webhook_url', status: 400 });
      await expect(attempt).rejects.toThrow(message);
      expect(await webhooks.list(org)).toEqual([]);
    });

    it('allowPrivate lifts the rule (loopback and http)', async () => {
      const open = createGuardedFetcher({ allowPrivate: true });
      try {
        const lenient = createWebhookService({
          store,
          fetcher: open,
          secretBox,
          now: () => new Date(),
          uuid: randomUUID,
          allowPrivate: true,
        });
        const org = await makeOrg(store, 'legend');
        await expect(
          lenient.create(org, { url: 'http://127.0.0.1:9/x', events: ['app.broken'] }),
        ).resolves.toMatchObject({ url: 'http://127.0.0.1:9/x' });
      } finally {
        await open.close();
      }
    });

    it('patch: changes url (re-checked), events and active; another organization gets 404', async () => {
      const org = await makeOrg(store, 'legend');
      const created = await webhooks.create(org, input());
      await expect(webhooks.patch(org, created.id, { url: 'https://10.0.0.1/x' })).rejects.toMatchObject({
        code: 'invalid_webhook_url',
      });
      const moved = await webhooks.patch(org, created.id, {
        url: 'https://other.example.com/new',
        events: ['contact.captured', 'app.broken'],
      });
      expect(moved).toMatchObject({
        url: 'https://other.example.com/new',
        events: ['contact.captured', 'app.broken'],
        active: true,
      });
      expect(await webhooks.patch(org, created.id, { active: false })).toMatchObject({ active: false });
      expect((await webhooks.list(org))[0]?.active).toBe(false);
      expect(await webhooks.patch(org, created.id, { active: true })).toMatchObject({ active: true });

      const intruder = await makeOrg(store, 'legend');
      await expect(webhooks.patch(intruder, created.id, { active: false })).rejects.toMatchObject({
        code: 'not_found',
        status: 404,
      });
      await expect(webhooks.remove(intruder, created.id)).rejects.toMatchObject({ status: 404 });
      await expect(webhooks.patch(org, randomUUID(), { active: false })).rejects.toMatchObject({
        status: 404,
      });
      expect(await webhooks.list(intruder)).toEqual([]);
      expect(await webhooks.list(org)).toHaveLength(1);
    });

    it('delete answers {deleted: true} and the webhook is gone', async () => {
      const org = await makeOrg(store, 'legend');
      const created = await webhooks.create(org, input());
      expect(await webhooks.remove(org, created.id)).toEqual({ deleted: true });
      expect(await webhooks.list(org)).toEqual([]);
      await expect(webhooks.remove(org, created.id)).rejects.toMatchObject({ status: 404 });
    });

    it('needs legend to create or edit; a downgraded organization can read, pause and delete', async () => {
      const legend = await makeOrg(store, 'legend');
      const created = await webhooks.create(legend, input());
      for (const tier of ['sidekick', 'hero'] as const) {
        const ctx = await makeOrg(store, tier);
        await expect(webhooks.create(ctx, input())).rejects.toMatchObject({ code: 'webhooks', status: 403 });
      }
      const downgraded: OrgContext = {
        ...legend,
        tier: 'hero',
        features: { ...legend.features, webhooks: false },
      };
      await expect(webhooks.patch(downgraded, created.id, { events: ['app.opened'] })).rejects.toMatchObject({
        code: 'webhooks',
      });
      await expect(webhooks.patch(downgraded, created.id, { active: true })).rejects.toMatchObject({
        code: 'webhooks',
      });
      expect(await webhooks.list(downgraded)).toHaveLength(1);
      expect(await webhooks.patch(downgraded, created.id, { active: false })).toMatchObject({
        active: false,
      });
      expect(await webhooks.remove(downgraded, created.id)).toEqual({ deleted: true });
    });
  });
}
