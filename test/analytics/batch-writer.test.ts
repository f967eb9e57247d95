import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { type ClickInput, createClickBuffer } from '../../src/analytics/write/click-buffer.js';
import type { Store } from '../../src/store/database.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { analyticsStore, DAY, NOW, silent, storedClicks } from './setup.js';

/**
 * The batch writer folds a batch's rollup increments in memory and upserts each key once, in chunks: these
 * suites check that this stores exactly what writing the same clicks one at a time stores.
 */

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEVICES = ['ios', 'android', 'desktop', 'other'] as const;

type Template = Omit<ClickInput, 'orgId' | 'linkId'> & { link: number };

/** Clicks of `links` links over two days, with repeats of every dimension so keys collide inside a batch. */
function clicks(count: number, links: number, seed: number): Template[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: count }, (_, i) => ({
    link: Math.floor(random() * links),
    at: NOW - DAY + Math.floor((i / count) * 2 * DAY),
    bot: random() < 0.05,
    variant: random() < 0.3 ? pick([0, 1]) : null,
    routed: 'https://example.com/x',
    country: pick(['US', 'de', null, 'FR', 'xyz']),
    city: null,
    device: pick(DEVICES),
    sourceApp: pick(['instagram', null]),
    referrerHost: pick(['t.co', 'Example.org', null]),
    platformKey: pick(['youtube', 'spotify', null]),
    tapId: random() < 0.5 ? randomUUID() : null,
  }));
}

/** Link ids fit the 36-character column and differ per organization (the rollup key has no org id). */
const linkSuffix = (orgId: string) => `-${orgId.slice(0, 30)}`;
const forOrg = (orgId: string, rows: Template[]): ClickInput[] =>
  rows.map(({ link, ...rest }) => ({ ...rest, orgId, linkId: `l${link}${linkSuffix(orgId)}` }));

describe('batch sizes', () => {
  it('maxRows per batch, backlogRows while two batches or more wait', async () => {
    const batches: number[] = [];
    const buffer = createClickBuffer({
      store: {} as Store,
      maxRows: 100,
      backlogRows: 400,
      logger: silent,
      write: async (rows) => {
        batches.push(rows.length);
      },
    });
    const rows = forOrg(randomUUID(), clicks(1150, 2, 6));
    for (const row of rows.slice(0, 1000)) buffer.record(row);
    await buffer.flush();
    for (const row of rows.slice(1000)) buffer.record(row);
    await buffer.flush();
    expect(batches).toEqual([400, 400, 200, 100, 50]);
    expect(buffer.stats()).toMatchObject({ pending: 0, written: 1150 });
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`batch writer on ${kind.name}`, () => {
    const parallel = kind.name === 'postgres' ? 2 : 1;
    let testStore: TestStore;
    let store: Store;
    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      store = testStore.store;
    });
    afterAll(async () => testStore?.dispose());

    /** Every stored count of the organization, with the org id stripped so two organizations compare. */
    async function snapshot(orgId: string) {
      const strip = (value: string) => value.replace(linkSuffix(orgId), '');
      const links = await sql<{
        link_id: string;
        day: number;
        dimension: string;
        value: string;
        count: unknown;
      }>`
        select link_id, day, dimension, value, count from click_rollups where org_id = ${orgId}`.execute(
        store.db,
      );
      const orgs = await sql<{ day: number; dimension: string; value: string; count: unknown }>`
        select day, dimension, value, count from org_rollups where org_id = ${orgId}`.execute(store.db);
      const raw = await storedClicks(store, orgId);
      const line = (row: Record<string, unknown>) =>
        Object.values(row)
          .map((value) => (typeof value === 'string' ? strip(value) : String(Number(value ?? -1))))
          .join(' ');
      const lines = (rows: Record<string, unknown>[]) => rows.map(line).sort();
      return {
        links: lines(links.rows),
        orgs: lines(orgs.rows),
        raw: raw
          .map(
            (row) => `${strip(row.linkId)} ${row.at} ${row.bot} ${row.country} ${row.device} ${row.variant}`,
          )
          .sort(),
      };
    }

    it('one batch of many rows over a few keys stores what writing them one by one stores', async () => {
      const repo = createAnalyticsRepo(store);
      const template = clicks(400, 3, 1);
      const [batched, single] = [randomUUID(), randomUUID()];
      await repo.writeClicks(forOrg(batched, template));
      for (const click of forOrg(single, template)) await repo.writeClicks([click]);
      const a = await snapshot(batched);
      const b = await snapshot(single);
      expect(a.raw).toHaveLength(400);
      expect(a).toEqual(b);
      // Folding really happened: far fewer rollup rows than clicks times dimensions.
      expect(a.links.length).toBeLessThan(400);
      const total = a.orgs.filter((row) => row.startsWith(`${Math.floor(NOW / DAY)} total `));
      expect(total).toHaveLength(1);
    });

    it('a batch whose distinct keys span several statements matches small batches', async () => {
      const repo = createAnalyticsRepo(store);
      // 600 links: thousands of distinct rollup keys, more than one statement's parameters can carry.
      const template = clicks(3000, 600, 2);
      const [big, small] = [randomUUID(), randomUUID()];
      await repo.writeClicks(forOrg(big, template));
      const rows = forOrg(small, template);
      for (let i = 0; i < rows.length; i += 7) await repo.writeClicks(rows.slice(i, i + 7));
      const a = await snapshot(big);
      expect(a.raw).toHaveLength(3000);
      expect(a.links.length).toBeGreaterThan(3000);
      expect(a).toEqual(await snapshot(small));
    });

    it('a value holding a tab or a line break stays one rollup row per key, with every click counted', async () => {
      const repo = createAnalyticsRepo(store);
      const orgId = randomUUID();
      const base = forOrg(orgId, clicks(6, 1, 9)).map((click) => ({ ...click, at: NOW, bot: false }));
      const odd = ['tab\there', 'line\nbreak', 'plain'];
      await repo.writeClicks(base.map((click, i) => ({ ...click, referrerHost: odd[i % 3] as string })));
      const rows = await sql<{ value: string; count: unknown }>`
        select value, count from click_rollups where org_id = ${orgId} and dimension = 'referrer'`.execute(
        store.db,
      );
      const counts = Object.fromEntries(rows.rows.map((row) => [row.value, Number(row.count)]));
      // PostgreSQL takes the rows as tab-separated lines: there the two characters become spaces.
      const [tab, line] =
        kind.name === 'postgres' ? ['tab here', 'line break'] : ['tab\there', 'line\nbreak'];
      expect(counts).toEqual({ [tab]: 2, [line]: 2, plain: 2 });
    });

    it('adds to the counts already stored, batch after batch', async () => {
      const repo = createAnalyticsRepo(store);
      const template = clicks(500, 4, 3);
      const [twice, once] = [randomUUID(), randomUUID()];
      await repo.writeClicks(forOrg(twice, template.slice(0, 250)));
      await repo.writeClicks(forOrg(twice, template.slice(250)));
      await repo.writeClicks(forOrg(once, template));
      expect(await snapshot(twice)).toEqual(await snapshot(once));
    });

    it('a failed flush keeps its rows; the retry stores each click once', async () => {
      const repo = createAnalyticsRepo(store);
      const orgId = randomUUID();
      let failures = 2;
      const buffer = createClickBuffer({
        store,
        maxRows: 100,
        logger: silent,
        write: async (batch) => {
          // Fail after the writer has done its work, inside the transaction's lifetime as far as the
          // buffer can tell: nothing of this batch may be lost or counted twice.
          if (failures-- > 0) throw new Error('store down');
          await repo.writeClicks(batch);
        },
      });
      const rows = forOrg(orgId, clicks(250, 2, 4));
      for (const row of rows) buffer.record(row);
      await buffer.flush();
      // PostgreSQL writes two batches at once: both in flight failed, and the third never started.
      expect(buffer.stats()).toMatchObject({ pending: 250, written: 0, failedFlushes: parallel });
      await buffer.stop();
      expect(buffer.stats()).toMatchObject({ pending: 0, written: 250, failedFlushes: 2 });
      const reference = randomUUID();
      await repo.writeClicks(forOrg(reference, clicks(250, 2, 4)));
      expect(await snapshot(orgId)).toEqual(await snapshot(reference));
    });

    it('writes one batch per lane of links at once on PostgreSQL (one on SQLite), each once, none after a failure', async () => {
      let writing = 0;
      let most = 0;
      const linksWriting = new Map<string, number>();
      const shared: string[] = [];
      const written: number[] = [];
      let failAt = -1;
      const buffer = createClickBuffer({
        store,
        maxRows: 100,
        backlogRows: 100,
        logger: silent,
        write: async (batch) => {
          const links = new Set(batch.map((row) => row.linkId));
          for (const link of links) {
            if (linksWriting.has(link)) shared.push(link);
            linksWriting.set(link, (linksWriting.get(link) ?? 0) + 1);
          }
          writing += 1;
          most = Math.max(most, writing);
          await new Promise((resolve) => setTimeout(resolve, 20));
          for (const link of links) {
            const left = (linksWriting.get(link) ?? 1) - 1;
            if (left === 0) linksWriting.delete(link);
            else linksWriting.set(link, left);
          }
          writing -= 1;
          if (written.length === failAt) throw new Error('store down');
          written.push(batch.length);
        },
      });
      // Twenty links: both lanes hold some, whatever the organization's id.
      for (const row of forOrg(randomUUID(), clicks(550, 20, 5))) buffer.record(row);
      await buffer.flush();
      expect(most).toBe(parallel);
      // Batches written at the same time never hold the same link: their rollup rows are disjoint.
      expect(shared).toEqual([]);
      expect(written.every((size) => size <= 100)).toBe(true);
      expect(buffer.stats()).toMatchObject({ pending: 0, written: 550 });

      // From the third write on the store fails: what was in flight fails, no other batch starts, and the
      // failed batches are kept.
      written.length = 0;
      failAt = 2;
      for (const row of forOrg(randomUUID(), clicks(550, 20, 5))) buffer.record(row);
      await buffer.flush();
      expect(written).toHaveLength(2);
      expect(buffer.stats().pending).toBe(550 - written.reduce((sum, n) => sum + n, 0));
      failAt = -1;
      await buffer.flush();
      expect(buffer.stats()).toMatchObject({ pending: 0, written: 1100, failedFlushes: parallel });
    });

    it('stop() drains a backlog many batches long, with clicks still arriving', async () => {
      const orgId = randomUUID();
      const buffer = createClickBuffer({ store, maxRows: 500, flushIntervalMs: 5, logger: silent });
      buffer.start();
      const rows = forOrg(orgId, clicks(5200, 50, 5));
      for (const row of rows.slice(0, 4000)) buffer.record(row);
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (const row of rows.slice(4000)) buffer.record(row);
      await buffer.stop();
      expect(buffer.stats()).toMatchObject({ pending: 0, written: 5200, dropped: 0 });
      const [total] = await createAnalyticsRepo(store).sums({ orgId }, ['total'], { from: 0, to: 1_000_000 });
      const humans = rows.filter((row) => !row.bot).length;
      expect(total?.clicks).toBe(humans);
      expect((await snapshot(orgId)).raw).toHaveLength(5200);
    });
  });
}
