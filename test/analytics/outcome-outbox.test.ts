import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutcomeRow } from '../../src/analytics/model.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { createOutcomeWriter, type OutcomeOutbox } from '../../src/analytics/write/outcomes.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { analyticsStore, NOW } from './setup.js';

/**
 * A tap outcome and its app.* webhook event commit together (the outbox written in the outcome's own
 * transaction), once per tap, also when a held outcome is written after a database outage.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `outcome and its event in one transaction on ${kind.name}`,
    () => {
      let testStore: TestStore;
      beforeAll(async () => {
        testStore = await analyticsStore(kind);
      });
      afterAll(async () => testStore?.dispose());

      const row = (event = true): OutcomeRow => ({
        tapId: randomUUID(),
        orgId: randomUUID(),
        linkId: randomUUID(),
        day: Math.floor(NOW / 86_400_000),
        outcome: 'opened',
        variant: null,
        platformKey: 'youtube',
        at: NOW,
        ...(event ? { event: { name: 'app.opened', data: { slug: 'abc' } } } : {}),
      });
      const stored = async (tapId: string) =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from tap_outcomes where tap_id = ${tapId}`.execute(
              testStore.store.db,
            )
          ).rows[0]?.n,
        );

      it('queues the event inside the outcome’s transaction and nudges after the commit, once per tap', async () => {
        const calls: { orgId: string; event: string; data: unknown; inTransaction: boolean }[] = [];
        let nudges = 0;
        const outbox: OutcomeOutbox = {
          async emitIn(trx, orgId, event, data) {
            calls.push({ orgId, event, data, inTransaction: trx.isTransaction });
            return 1;
          },
          nudge: () => {
            nudges += 1;
          },
        };
        const write = createOutcomeWriter(createAnalyticsRepo(testStore.store), outbox);
        const outcome = row();
        expect(await write(outcome)).toBe(true);
        expect(calls).toEqual([
          { orgId: outcome.orgId, event: 'app.opened', data: { slug: 'abc' }, inTransaction: true },
        ]);
        expect(nudges).toBe(1);
        // The same tap again (a replay after an outage, a second beacon): no second outcome, no second event.
        expect(await write(outcome)).toBe(false);
        expect(calls).toHaveLength(1);
        expect(nudges).toBe(1);
      });

      it('rolls the outcome back when its event cannot be queued: both or neither', async () => {
        const outbox: OutcomeOutbox = {
          async emitIn() {
            throw new Error('outbox insert failed');
          },
          nudge: () => undefined,
        };
        const write = createOutcomeWriter(createAnalyticsRepo(testStore.store), outbox);
        const outcome = row();
        await expect(write(outcome)).rejects.toThrow('outbox insert failed');
        expect(await stored(outcome.tapId)).toBe(0);
        // A row without an event (ANALYTICS on, no webhook outbox) is stored as before.
        const plain = row(false);
        expect(await write(plain)).toBe(true);
        expect(await stored(plain.tapId)).toBe(1);
      });
    },
  );
}
