import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { type ClickInput, createClickBuffer } from '../../src/analytics/write/click-buffer.js';
import { createClickSpill } from '../../src/analytics/write/click-spill.js';
import type { Store } from '../../src/store/database.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { analyticsStore, clickInput, NOW, silent, storedClicks } from './setup.js';

/**
 * While the store fails, clicks go to an append-only spill on disk instead of piling up in memory or
 * being dropped; once it is back each spilled segment is written exactly once, even when a crash comes
 * between a segment's commit and the deletion of its file.
 */

const dirs: string[] = [];
const spillDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-spill-test-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const segments = (dir: string) =>
  readdirSync(dir).filter((file) => file.endsWith('.seg') || file.endsWith('.open'));
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('click spill, with a stand-in writer', () => {
  it('while the store fails each tick moves pending clicks to disk; once back every click is written once', async () => {
    const dir = spillDir();
    const written: number[] = [];
    const ids = new Set<string>();
    let down = true;
    const buffer = createClickBuffer({
      store: {} as Store,
      flushIntervalMs: 20,
      maxRows: 50,
      logger: silent,
      spill: createClickSpill({ dir, segmentClicks: 100 }),
      write: async (rows, id) => {
        if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        if (id !== undefined) {
          // The store's click_batches: an id written before is not written again.
          if (ids.has(id)) return false;
          ids.add(id);
        }
        written.push(...rows.map((row) => row.at));
        return true;
      },
    });
    buffer.start();
    for (let i = 0; i < 450; i++) {
      buffer.record(clickInput({ at: i }));
      if (i % 50 === 0) await tick(25);
    }
    await tick(60);
    const during = buffer.stats();
    // Memory holds at most the failed batch and one tick; the rest is on disk.
    expect(during.pending).toBeLessThanOrEqual(100);
    expect(during.spilled + during.pending).toBe(450);
    expect(during.spillBytes).toBeGreaterThan(0);
    expect(during.dropped).toBe(0);
    expect(segments(dir).length).toBeGreaterThan(1);

    down = false;
    await tick(100);
    await buffer.flush();
    await buffer.stop();
    expect(written.sort((a, b) => a - b)).toEqual(Array.from({ length: 450 }, (_, i) => i));
    expect(buffer.stats()).toMatchObject({ pending: 0, spilled: 0, written: 450, dropped: 0 });
    expect(segments(dir)).toEqual([]);
  });

  it('a buffer past maxBuffered spills its oldest clicks instead of dropping them', async () => {
    const dir = spillDir();
    const buffer = createClickBuffer({
      store: {} as Store,
      maxRows: 10,
      maxBuffered: 100,
      logger: silent,
      spill: createClickSpill({ dir }),
      write: async () => {
        throw new Error('store down');
      },
    });
    for (let i = 0; i < 250; i++) buffer.record(clickInput({ at: i }));
    const stats = buffer.stats();
    expect(stats.dropped).toBe(0);
    expect(stats.pending).toBeLessThanOrEqual(100);
    expect(stats.pending + stats.spilled).toBe(250);
  });

  it('a line cut short by a crash mid-append is skipped, the rest of its segment replayed', async () => {
    const dir = spillDir();
    const spill = createClickSpill({ dir });
    spill.append([clickInput({ at: 1 }), clickInput({ at: 2 })]);
    const { appendFileSync } = await import('node:fs');
    const open = readdirSync(dir).find((file) => file.endsWith('.open')) as string;
    appendFileSync(join(dir, open), '{"linkId":"cut-sh');
    const segment = spill.next();
    expect(segment?.clicks.map((click) => click.at)).toEqual([1, 2]);
    expect(segment?.unreadable).toBe(1);
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`click spill replayed on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: Store;
    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      store = testStore.store;
    });
    afterAll(async () => testStore?.dispose());

    const clicksOf = (orgId: string, count: number): ClickInput[] =>
      Array.from({ length: count }, (_, i) => clickInput({ orgId, linkId: `link-${i % 3}`, at: NOW + i }));
    const total = async (orgId: string) =>
      (await createAnalyticsRepo(store).sums({ orgId }, ['total'], { from: 0, to: 1_000_000 }))[0]?.clicks ??
      0;

    it('a batch id is written once: the second write of the same id changes nothing', async () => {
      const orgId = randomUUID();
      const repo = createAnalyticsRepo(store);
      const id = `b-${randomUUID()}`;
      expect(await repo.writeClicks(clicksOf(orgId, 30), id)).toBe(true);
      expect(await repo.writeClicks(clicksOf(orgId, 30), id)).toBe(false);
      expect((await storedClicks(store, orgId)).length).toBe(30);
      expect(await total(orgId)).toBe(30);
    });

    it('a crash between a segment’s commit and its file’s deletion: the next start does not count it twice', async () => {
      const orgId = randomUUID();
      const dir = spillDir();
      const first = createClickSpill({ dir, segmentClicks: 100 });
      first.append(clicksOf(orgId, 250));
      first.seal();
      // The replay commits the first segment, then the process dies before deleting its file.
      const segment = first.next();
      expect(segment?.clicks.length).toBe(100);
      await createAnalyticsRepo(store).writeClicks(segment?.clicks ?? [], segment?.id);

      const buffer = createClickBuffer({ store, logger: silent, spill: createClickSpill({ dir }) });
      expect(buffer.stats().spilled).toBe(250);
      await buffer.flush();
      expect((await storedClicks(store, orgId)).length).toBe(250);
      expect(await total(orgId)).toBe(250);
      expect(buffer.stats()).toMatchObject({ spilled: 0, pending: 0 });
      expect(segments(dir)).toEqual([]);
    });

    it('stop() with the store refusing keeps the clicks on disk; the next buffer writes them once', async () => {
      const orgId = randomUUID();
      const dir = spillDir();
      let down = true;
      const repo = createAnalyticsRepo(store);
      const buffer = createClickBuffer({
        store,
        logger: silent,
        maxRows: 40,
        spill: createClickSpill({ dir }),
        write: (rows, id) =>
          down ? Promise.reject(new Error('Connection terminated')) : repo.writeClicks(rows, id),
      });
      for (const click of clicksOf(orgId, 130)) buffer.record(click);
      await buffer.stop();
      expect(buffer.stats()).toMatchObject({ pending: 0, spilled: 130 });
      down = false;
      const next = createClickBuffer({ store, logger: silent, spill: createClickSpill({ dir }) });
      await next.flush();
      expect((await storedClicks(store, orgId)).length).toBe(130);
      expect(await total(orgId)).toBe(130);
      expect(segments(dir)).toEqual([]);
    }, 15_000);
  });
}
