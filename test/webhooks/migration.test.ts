import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { down, up } from '../../src/store/migrations/006-webhooks.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds } from '../helpers/stores.js';
import { webhookStore } from './setup.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`migration 006-webhooks on ${kind.name}`, () => {
    it('creates both tables with their defaults, cascades deliveries, and reverses cleanly', async () => {
      const testStore = await webhookStore(kind);
      const { db } = testStore.store;
      try {
        const org = await makeOrg(testStore.store, 'legend');
        await sql`insert into webhooks (id, org_id, url, events, secret_ciphertext, created_at)
          values ('w1', ${org.orgId}, 'https://e.x', '[]', 'k.x', 'now')`.execute(db);
        await sql`insert into webhook_deliveries (id, webhook_id, org_id, event, payload, created_at)
          values ('d1', 'w1', ${org.orgId}, 'link.created', '{}', 'now')`.execute(db);
        const webhook = await sql<{ active: number; fail_count: number }>`select * from webhooks`.execute(db);
        expect(webhook.rows[0]).toMatchObject({ active: 1, fail_count: 0, last_delivered_at: null });
        const delivery = await sql<{ status: string }>`select * from webhook_deliveries`.execute(db);
        expect(delivery.rows[0]).toMatchObject({ status: 'pending', claim_token: null, attempted_at: null });
        await sql`delete from webhooks where id = 'w1'`.execute(db);
        expect((await sql`select * from webhook_deliveries`.execute(db)).rows).toEqual([]);
        await down(db as never);
        await expect(sql`select 1 from webhooks`.execute(db)).rejects.toThrow();
        await up(db as never);
        expect((await sql`select * from webhooks`.execute(db)).rows).toEqual([]);
      } finally {
        await testStore.dispose();
      }
    });
  });
}
