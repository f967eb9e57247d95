import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitWindow } from '../../src/analytics/read/rollup-reads.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { type ClickInput, createClickBuffer } from '../../src/analytics/write/click-buffer.js';
import { laneOf } from '../../src/analytics/write/click-lanes.js';
import type { Store } from '../../src/store/database.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { analyticsStore, clickInput, NOW, storedClicks } from './setup.js';

/** Every day there is: from the epoch to far in the future. */
const ALL = { from: 0, to: 1_000_000 };

const click = clickInput;

function recordingLogger() {
  const lines: { level: string; details: object; message: string }[] = [];
  return {
    lines,
    warn: (details: object, message: string) => lines.push({ level: 'warn', details, message }),
    error: (details: object, message: string) => lines.push({ level: 'error', details, message }),
  };
}

describe('splitWindow', () => {
  it('whole 7-day blocks inside the window, the rest as edge days', () => {
    expect(splitWindow({ from: 14, to: 27 })).toEqual({ days: [], weeks: { from: 14, to: 21 } });
    expect(splitWindow({ from: 13, to: 29 })).toEqual({
      days: [
        { from: 13, to: 13 },
        { from: 28, to: 29 },
      ],
      weeks: { from: 14, to: 21 },
    });
    expect(splitWindow({ from: 15, to: 26 })).toEqual({ days: [{ from: 15, to: 26 }], weeks: null });
    expect(splitWindow({ from: 20, to: 20 })).toEqual({ days: [{ from: 20, to: 20 }], weeks: null });
  });
});

describe('click buffer, with a stand-in writer', () => {
  it('record is synchronous and never throws; flush writes batches of maxRows, one write each', async () => {
    const batches: number[] = [];
    const buffer = createClickBuffer({
      store: {} as Store,
      maxRows: 4,
      logger: recordingLogger(),
      write: async (rows) => {
        batches.push(rows.length);
      },
    });
    for (let i = 0; i < 10; i++) expect(buffer.record(click())).toBeUndefined();
    expect(buffer.record(null as unknown as ClickInput)).toBeUndefined();
    expect(buffer.stats().pending).toBe(11);
    await buffer.flush();
    expect(batches).toEqual([4, 4, 3]);
    expect(buffer.stats()).toMatchObject({ pending: 0, written: 11 });
  });

  it('a failing prune of old batch ids is retried each tick and logged once until one succeeds', async () => {
    const logger = recordingLogger();
    const outcomes = ['fail', 'fail', 'fail', 'ok', 'fail'];
    let calls = 0;
    const buffer = createClickBuffer({
      store: {} as Store,
      flushIntervalMs: 10,
      logger,
      write: async () => {},
      prune: async () => {
        const outcome = outcomes[calls++];
        if (outcome === 'fail') throw new Error(`prune ${calls} failed`);
      },
    });
    buffer.start();
    try {
      // Three failures in a row, then a success (after which the next is an hour away).
      await expect.poll(() => calls, { timeout: 5_000 }).toBe(4);
    } finally {
      await buffer.stop();
    }
    const warnings = logger.lines.filter((line) => line.message.startsWith('pruning old batch ids failed'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.details).toMatchObject({ err: { message: 'prune 1 failed' } });
  });

  it('a failing flush keeps its rows in order and the next tick writes them', async () => {
    const written: number[] = [];
    let fail = true;
    const logger = recordingLogger();
    const buffer = createClickBuffer({
      store: {} as Store,
      flushIntervalMs: 20,
      logger,
      write: async (rows) => {
        if (fail) throw new Error('store down');
        written.push(...rows.map((row) => row.at));
      },
    });
    buffer.start();
    for (let i = 0; i < 5; i++) buffer.record(click({ at: i }));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(buffer.stats().failedFlushes).toBeGreaterThan(0);
    expect(buffer.stats().pending).toBe(5);
    expect(logger.lines.some((line) => line.level === 'error')).toBe(true);
    buffer.record(click({ at: 5 }));
    fail = false;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(written).toEqual([0, 1, 2, 3, 4, 5]);
    await buffer.stop();
  });

  it('bounded: beyond maxBuffered the oldest rows are dropped and counted', async () => {
    const logger = recordingLogger();
    const buffer = createClickBuffer({
      store: {} as Store,
      maxRows: 10,
      maxBuffered: 100,
      logger,
      write: async () => {
        throw new Error('store down');
      },
    });
    for (let i = 0; i < 250; i++) buffer.record(click({ at: i }));
    const stats = buffer.stats();
    expect(stats.pending).toBeLessThanOrEqual(100);
    expect(stats.pending + stats.dropped).toBe(250);
    expect(logger.lines.find((line) => line.level === 'warn')?.details).toMatchObject({ maxBuffered: 100 });
  });

  it('enabled: false (ANALYTICS=off) records nothing', async () => {
    const buffer = createClickBuffer({
      store: {} as Store,
      enabled: false,
      logger: recordingLogger(),
      write: async () => {},
    });
    buffer.record(click());
    expect(buffer.stats().pending).toBe(0);
  });

  it('reaching maxRows starts a flush before the tick', async () => {
    const batches: number[] = [];
    const buffer = createClickBuffer({
      store: {} as Store,
      flushIntervalMs: 60_000,
      maxRows: 3,
      logger: recordingLogger(),
      write: async (rows) => {
        batches.push(rows.length);
      },
    });
    buffer.start();
    for (let i = 0; i < 3; i++) buffer.record(click());
    await new Promise((resolve) => setImmediate(resolve));
    await buffer.flush();
    expect(batches).toEqual([3]);
    await buffer.stop();
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`click buffer on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: Store;
    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      store = testStore.store;
    });
    afterAll(async () => testStore?.dispose());

    const countClicks = async (orgId: string) => (await storedClicks(store, orgId)).length;

    /** Makes every rollup insert of `orgId` fail, as a store failing mid-transaction would. */
    async function failRollupsOf(orgId: string): Promise<() => Promise<void>> {
      if (store.dialect === 'sqlite') {
        await sql`create trigger fail_rollups before insert on org_rollups when new.org_id = ${sql.lit(orgId)}
          begin select raise(abort, 'rollups refused'); end`.execute(store.db);
        return async () => void (await sql`drop trigger fail_rollups`.execute(store.db));
      }
      await sql`create function fail_rollups() returns trigger language plpgsql as
        $$ begin raise exception 'rollups refused'; end $$`.execute(store.db);
      await sql`create trigger fail_rollups before insert on org_rollups for each row
        when (new.org_id = ${sql.lit(orgId)}) execute function fail_rollups()`.execute(store.db);
      return async () => {
        await sql`drop trigger fail_rollups on org_rollups`.execute(store.db);
        await sql`drop function fail_rollups()`.execute(store.db);
      };
    }

    it('stop() writes every recorded click: no click lost on a clean shutdown', async () => {
      const orgId = randomUUID();
      const buffer = createClickBuffer({
        store,
        flushIntervalMs: 10_000,
        maxRows: 500,
        logger: recordingLogger(),
      });
      buffer.start();
      for (let i = 0; i < 2345; i++) buffer.record(click({ orgId, linkId: `l-${i % 7}`, at: NOW + i }));
      await buffer.stop();
      expect(await countClicks(orgId)).toBe(2345);
      const repo = createAnalyticsRepo(store);
      const [total] = await repo.sums({ orgId }, ['total'], ALL);
      expect(total?.clicks).toBe(2345);
    });

    it('one transaction per batch: a batch failing after its raw clicks went in leaves no raw click and no rollup', async () => {
      const orgId = randomUUID();
      const repo = createAnalyticsRepo(store);
      // The raw blocks are the first statement, the link rollups the second, the organization's the last.
      const allowRollups = await failRollupsOf(orgId);
      const rows = Array.from({ length: 1001 }, (_, i) => click({ orgId, linkId: `link-${i % 3}` }));
      await expect(repo.writeClicks(rows)).rejects.toThrow();
      expect(await countClicks(orgId)).toBe(0);
      expect(await repo.sums({ orgId }, ['total'], ALL)).toEqual([]);
      // The buffer keeps such a batch and writes it once the store accepts it.
      const buffer = createClickBuffer({ store, maxRows: 2000, logger: recordingLogger() });
      for (const row of rows) buffer.record(row);
      await buffer.flush();
      // One failed batch per lane of links that holds some of them (click-lanes.ts), each kept.
      const lanes = store.dialect === 'postgres' ? 2 : 1;
      const failed = new Set(['link-0', 'link-1', 'link-2'].map((link) => laneOf(link, lanes))).size;
      expect(buffer.stats()).toMatchObject({ pending: 1001, failedFlushes: failed });
      await allowRollups();
      await buffer.stop();
      expect(await countClicks(orgId)).toBe(1001);
      expect((await repo.sums({ orgId }, ['total'], ALL))[0]?.clicks).toBe(1001);
    });

    it('bots are stored apart and never counted as clicks', async () => {
      const orgId = randomUUID();
      const buffer = createClickBuffer({ store, logger: recordingLogger() });
      buffer.record(click({ orgId, bot: true }));
      buffer.record(click({ orgId }));
      await buffer.flush();
      expect(await countClicks(orgId)).toBe(2);
      const sums = await createAnalyticsRepo(store).sums({ orgId }, ['total', 'bot'], ALL);
      expect(sums.sort((a, b) => a.dimension.localeCompare(b.dimension))).toEqual([
        { dimension: 'bot', value: '', clicks: 1 },
        { dimension: 'total', value: '', clicks: 1 },
      ]);
    });
  });
}
