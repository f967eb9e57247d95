import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { createClickPartitions, monthOf } from '../../src/analytics/write/click-partitions.js';
import { createClickRetention } from '../../src/analytics/write/click-retention.js';
import type { Link } from '../../src/links/schema.js';
import type { Store } from '../../src/store/database.js';
import { down, up } from '../../src/store/migrations/017-click-partitions.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import {
  analyticsStore,
  clickInput,
  DAY,
  type Harness,
  makeHarness,
  makeOrg,
  NOW,
  storedClicks,
} from './setup.js';

/**
 * CLICK_RETENTION_DAYS (issue 19): raw clicks older than the window go (whole month partitions on
 * PostgreSQL, small batches on SQLite), rollups never change, and the clicks list and export of recent
 * days read exactly what they read before.
 */

const RETENTION_DAYS = 30;
const CUTOFF = NOW - RETENTION_DAYS * DAY;
const AGES = [400, 200, 95, 45, 31, 29, 10, 1, 0];
const silentLog = { info: () => {}, error: () => {} };

async function rollupTables(store: Store): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const table of ['click_rollups', 'org_rollups', 'group_rollups'] as const) {
    const rows = await store.db.selectFrom(table).selectAll().execute();
    out.push(rows.map((row) => JSON.stringify({ ...row, count: Number(row.count) })).sort());
  }
  return out;
}

async function partitionNames(store: Store): Promise<string[]> {
  const result = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid where i.inhparent = 'click_blocks'::regclass`.execute(store.db);
  return result.rows.map((row) => row.name).sort();
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`raw click retention on ${kind.name}`, () => {
    let testStore: TestStore;
    let h: Harness;
    let org: OrgContext;
    let link: Link;

    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      h = makeHarness(testStore.store);
      org = await makeOrg(testStore.store, 'legend');
      link = await h.links.create(org, { url: 'https://example.com/r', slug: 'r', tags: ['t'] });
      const repo = createAnalyticsRepo(testStore.store);
      // One batch per age, as days of traffic arrive: each old month gets its partition on demand.
      for (const [i, age] of AGES.entries()) {
        const at = NOW - age * DAY;
        const clicks = [0, 1, 2].map((n) =>
          clickInput({ orgId: org.orgId, linkId: link.id, at: at + n, country: n === 0 ? 'US' : 'DE' }),
        );
        await repo.writeClicks(clicks, `retention-${i}`);
      }
    });
    afterAll(async () => {
      await testStore?.dispose();
    });

    it.skipIf(kind.name !== 'postgres')(
      'writes each month into its own partition, created on demand',
      async () => {
        const names = await partitionNames(testStore.store);
        for (const age of AGES) expect(names).toContain(monthOf(NOW - age * DAY).name);
        const inDefault = await sql<{ n: string }>`select count(*) as n from click_blocks_default`.execute(
          testStore.store.db,
        );
        expect(Number(inDefault.rows[0]?.n)).toBe(0);
      },
    );

    it('drops raw clicks past the window and never a rollup; recent clicks read as before', async () => {
      const rollupsBefore = await rollupTables(testStore.store);
      const recent = async () =>
        (await h.analytics.clicks(org, link.id, { limit: 1000 })).clicks.filter(
          (click) => Date.parse(click.at) >= CUTOFF,
        );
      const listBefore = await recent();
      expect(listBefore.length).toBe(4 * 3);
      const exportBefore = await collect(h, org, 7);
      const retention = createClickRetention({
        partitions: createClickPartitions(testStore.store),
        retentionDays: RETENTION_DAYS,
        now: () => NOW,
        logger: silentLog,
      });
      await retention.run();

      const kept = await storedClicks(testStore.store, org.orgId);
      // Everything from the cutoff on is kept; on PostgreSQL the cutoff's own month is kept whole.
      const keptFrom = kind.name === 'postgres' ? monthOf(CUTOFF).from : CUTOFF;
      const expected = AGES.filter((age) => NOW - age * DAY >= keptFrom).length * 3;
      expect(kept.length).toBe(expected);
      expect(kept.every((click) => click.at >= keptFrom)).toBe(true);
      expect(expected).toBeLessThan(AGES.length * 3);
      expect(await rollupTables(testStore.store)).toEqual(rollupsBefore);
      expect(await recent()).toEqual(listBefore);
      expect(await collect(h, org, 7)).toEqual(exportBefore);
      // Totals still count the removed clicks (90 days: ages 45, 31, 29, 10, 1, 0).
      const stats = await h.analytics.linkStats(org, link.id);
      expect(stats.total).toBe(6 * 3);
      if (kind.name === 'postgres') {
        const names = await partitionNames(testStore.store);
        expect(names).not.toContain(monthOf(NOW - 200 * DAY).name);
        expect(names).toContain(monthOf(NOW + 40 * DAY).name);
      }
      // A second pass finds nothing more to do.
      await retention.run();
      expect((await storedClicks(testStore.store, org.orgId)).length).toBe(expected);
    });

    it.skipIf(kind.name !== 'postgres')(
      'the partitioning migration keeps every existing block and its id',
      async () => {
        const db = testStore.store.db as unknown as Kysely<unknown>;
        const before = await storedClicks(testStore.store, org.orgId);
        await down(db);
        await up(db);
        expect(await storedClicks(testStore.store, org.orgId)).toEqual(before);
        const partitioned = await sql`select 1 from pg_partitioned_table p
          where p.partrelid = 'click_blocks'::regclass`.execute(testStore.store.db);
        expect(partitioned.rows.length).toBe(1);
        // New blocks take ids after the old ones.
        await createAnalyticsRepo(testStore.store).writeClicks([
          clickInput({ orgId: org.orgId, linkId: link.id }),
        ]);
        const after = await storedClicks(testStore.store, org.orgId);
        expect(Math.min(...after.slice(before.length).map((c) => c.block))).toBeGreaterThan(
          Math.max(...before.map((c) => c.block)),
        );
      },
    );
  });
}

async function collect(h: Harness, org: OrgContext, days: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const page of await h.analytics.exportPages(org, { days })) out.push(...page);
  return out;
}
