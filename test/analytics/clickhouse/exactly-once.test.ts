import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickhouseClient, createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { clickRow } from '../../../src/analytics/clickhouse/rows.js';
import { tablesOf } from '../../../src/analytics/clickhouse/schema.js';
import { createClickhouseAnalyticsStore } from '../../../src/analytics/clickhouse/store.js';
import { DAY_MS } from '../../../src/analytics/model.js';
import type { AnalyticsStore } from '../../../src/analytics/repo.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { sqliteKind, type TestStore } from '../../helpers/stores.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { clickInput, NOW } from '../setup.js';
import { openTestAnalytics } from './setup.js';

/** 2025-02-28 and 2025-03-01: one batch over two months (two partitions). */
const FEB = Date.UTC(2025, 1, 28, 23, 0);
const MAR = Date.UTC(2025, 2, 1, 1, 0);
const everyDay = { from: Math.floor(FEB / DAY_MS) - 30, to: Math.floor(NOW / DAY_MS) + 1 };

describe.skipIf(clickhouseKind.skipReason !== null)(
  'ClickHouse writes: exactly once without a dedup token',
  () => {
    let ch: TestClickhouse;
    let main: TestStore;
    let t: Awaited<ReturnType<typeof openTestAnalytics>>;

    beforeAll(async () => {
      ch = await startClickhouse();
      main = await sqliteKind.create();
      t = await openTestAnalytics(ch, main.store);
    });
    afterAll(async () => {
      await t?.close();
      await main?.dispose();
      await ch?.stop();
    });

    const total = async (store: AnalyticsStore, orgId: string) =>
      (await store.sums({ orgId }, ['total'], everyDay))[0]?.clicks ?? 0;
    const rawRows = (orgId: string) =>
      t.count(`SELECT count() AS n FROM ${t.database}.clicks WHERE org_id = '${orgId}'`);

    /** A client whose inserts fail: before sending (`before`) or after the server took them (`after`). */
    function faulty(failAt: number, when: 'before' | 'after'): ClickhouseClient {
      let inserts = 0;
      return {
        ...t.client,
        async insert(table, rows, settings) {
          inserts += 1;
          if (inserts === failAt && when === 'before') throw new Error('connection reset (before)');
          await t.client.insert(table, rows, settings);
          if (inserts === failAt && when === 'after') throw new Error('socket hang up (answer lost)');
        },
      };
    }
    const storeOver = (client: ClickhouseClient) =>
      createClickhouseAnalyticsStore({ client, database: t.database, main: main.store });

    it('applying the schema again changes nothing', async () => {
      await t.store.writeClicks([clickInput({ orgId: 'org-schema' })], 'b-schema');
      const again = await openTestAnalytics(ch, main.store);
      await again.close();
      const reopened = await (
        await import('../../../src/analytics/clickhouse/store.js')
      ).openClickhouseAnalytics(t.url, main.store);
      await reopened.close();
      expect(await total(t.store, 'org-schema')).toBe(1);
    });

    it('a batch sent twice counts once; a batch without an id is written each time', async () => {
      const clicks = [clickInput({ orgId: 'org-twice' }), clickInput({ orgId: 'org-twice', at: NOW + 1 })];
      expect(await t.store.writeClicks(clicks, 'b-twice')).toBe(true);
      expect(await t.store.writeClicks(clicks, 'b-twice')).toBe(false);
      expect(await total(t.store, 'org-twice')).toBe(2);
      expect(await rawRows('org-twice')).toBe(2);
      const plain = [clickInput({ orgId: 'org-no-id' })];
      expect(await t.store.writeClicks(plain)).toBe(true);
      expect(await t.store.writeClicks(plain)).toBe(true);
      expect(await total(t.store, 'org-no-id')).toBe(2);
    });

    it('an answer lost after the insert: the retry writes nothing and answers false', async () => {
      const clicks = [clickInput({ orgId: 'org-lost' }), clickInput({ orgId: 'org-lost', country: 'FR' })];
      await expect(storeOver(faulty(1, 'after')).writeClicks(clicks, 'b-lost')).rejects.toThrow(
        /answer lost/,
      );
      expect(await t.store.writeClicks(clicks, 'b-lost')).toBe(false);
      expect(await total(t.store, 'org-lost')).toBe(2);
      const countries = await t.store.sums({ orgId: 'org-lost' }, ['country'], everyDay);
      expect(countries.sort((a, b) => a.value.localeCompare(b.value))).toEqual([
        { dimension: 'country', value: 'FR', clicks: 1 },
        { dimension: 'country', value: 'US', clicks: 1 },
      ]);
    });

    it('a batch over two months whose first attempt wrote one: the retry writes only the other', async () => {
      const clicks = [
        clickInput({ orgId: 'org-months', at: FEB }),
        clickInput({ orgId: 'org-months', at: MAR }),
        clickInput({ orgId: 'org-months', at: MAR + 60_000 }),
      ];
      // February went in, then the connection broke before March's insert.
      await expect(storeOver(faulty(2, 'before')).writeClicks(clicks, 'b-months')).rejects.toThrow(/reset/);
      expect(await rawRows('org-months')).toBe(1);
      expect(await t.store.writeClicks(clicks, 'b-months')).toBe(true);
      expect(await t.store.writeClicks(clicks, 'b-months')).toBe(false);
      expect(await rawRows('org-months')).toBe(3);
      const daily = await t.store.daily({ orgId: 'org-months' }, everyDay);
      expect([...daily].sort()).toEqual([
        [Math.floor(FEB / DAY_MS), 1],
        [Math.floor(MAR / DAY_MS), 2],
      ]);
    });

    it('the same partition written by an earlier attempt is found by the ledger, not by luck', async () => {
      // The first attempt's rows, exactly as the store writes them (same batch id, same seq).
      const clicks = [
        clickInput({ orgId: 'org-ledger', at: FEB }),
        clickInput({ orgId: 'org-ledger', at: MAR }),
      ];
      const tables = tablesOf(t.database);
      await t.client.insert(tables.clicks.text, [clickRow(clicks[0] as never, 'b-ledger', 0)]);
      expect(await t.store.writeClicks(clicks, 'b-ledger')).toBe(true);
      expect(await total(t.store, 'org-ledger')).toBe(2);
      const ids = await t.client.rows<{ id: string }>(
        `SELECT concat(batch_id, '-', toString(seq)) AS id FROM ${t.database}.clicks WHERE org_id = 'org-ledger' ORDER BY at`,
      );
      expect(ids.map((row) => row.id)).toEqual(['b-ledger-0', 'b-ledger-1']);
    });

    it('the connection cut mid-insert (TCP proxy): the retry under the same id counts every click once', async () => {
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: ch.port });
      const client = createClickhouseClient({
        url: `http://127.0.0.1:${proxy.port}`,
        username: 'default',
        password: '',
        database: t.database,
      });
      try {
        const store = storeOver(client);
        // Two months, many links: a body large enough to be on the wire when the cut comes.
        const clicks = Array.from({ length: 20_000 }, (_, i) =>
          clickInput({ orgId: 'org-cut', linkId: `link-${i % 500}`, at: i % 2 === 0 ? FEB : MAR + i }),
        );
        const attempt = store.writeClicks(clicks, 'b-cut');
        // Cut as soon as February's part is in: March's insert is on the wire or about to be.
        while ((await rawRows('org-cut')) === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        await proxy.cut();
        await attempt.catch(() => {});
        proxy.restore();
        // February alone, nearly always; both months when March's insert beat the cut (then its answer
        // may or may not have come back): the retry must complete the batch either way.
        expect([10_000, 20_000]).toContain(await rawRows('org-cut'));
        await store.writeClicks(clicks, 'b-cut');
        expect(await store.writeClicks(clicks, 'b-cut')).toBe(false);
        expect(await rawRows('org-cut')).toBe(20_000);
        expect(await total(t.store, 'org-cut')).toBe(20_000);
      } finally {
        await client.close();
        await proxy.close();
      }
    });

    it('pruning forgets old batch ids by dropping whole days of the ledger', async () => {
      await t.store.writeClicks([clickInput({ orgId: 'org-prune' })], 'b-prune');
      const ledger = () => t.count(`SELECT count() AS n FROM ${t.database}.click_batch_parts`);
      const before = await ledger();
      expect(before).toBeGreaterThan(0);
      await t.store.pruneBatchIds(Date.now() - 7 * DAY_MS);
      expect(await ledger()).toBe(before);
      await t.store.pruneBatchIds(Date.now() + 3 * DAY_MS);
      expect(await ledger()).toBe(0);
    });

    it('a tap counts its first outcome; the same row again is a retry, another outcome is refused', async () => {
      const day = Math.floor(NOW / DAY_MS);
      const outcome = {
        tapId: 'tap-1',
        orgId: 'org-out',
        linkId: 'link-1',
        day,
        outcome: 'opened' as const,
        variant: 1,
        platformKey: 'youtube',
        at: NOW + 5000,
      };
      let withinRuns = 0;
      const within = async () => {
        withinRuns += 1;
      };
      expect(await t.store.insertOutcome(outcome, within)).toBe(true);
      expect(await t.store.insertOutcome(outcome, within)).toBe(true);
      expect(await t.store.insertOutcome({ ...outcome, outcome: 'browser', at: NOW + 9000 }, within)).toBe(
        false,
      );
      expect(withinRuns).toBe(2);
      expect(await t.count(`SELECT count() AS n FROM ${t.database}.outcomes WHERE tap_id = 'tap-1'`)).toBe(1);
      // A second report that slipped past the check (two at once, Redis down): the writer's hourly pass
      // (pruneBatchIds runs the outcome correction) takes it back out of the rollups; reads count the first.
      await t.client.insert(`${t.database}.outcomes`, [
        {
          org_id: 'org-out',
          link_id: 'link-1',
          day: new Date(day * DAY_MS).toISOString().slice(0, 10),
          tap_id: 'tap-1',
          outcome: 'broken',
          variant: 1,
          platform_key: 'youtube',
          cell: '',
          at: NOW + 7000,
          precedence: 1,
        },
      ]);
      await t.store.pruneBatchIds(0);
      const sums = await t.store.sums({ orgId: 'org-out' }, ['outcome', 'platform_outcome'], everyDay);
      expect(sums.sort((a, b) => a.dimension.localeCompare(b.dimension))).toEqual([
        { dimension: 'outcome', value: 'opened', clicks: 1 },
        { dimension: 'platform_outcome', value: 'youtube|opened', clicks: 1 },
      ]);
      await t.client.command(`OPTIMIZE TABLE ${t.database}.outcomes FINAL`);
      const kept = await t.client.rows<{ outcome: string }>(
        `SELECT outcome FROM ${t.database}.outcomes FINAL WHERE tap_id = 'tap-1'`,
      );
      expect(kept).toEqual([{ outcome: 'opened' }]);
    });
  },
);
