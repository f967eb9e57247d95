import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickInput } from '../../src/analytics/write/click-buffer.js';
import { createClickSpill } from '../../src/analytics/write/click-spill.js';
import { createClickThread } from '../../src/analytics/write/click-thread.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { clickInput, NOW, storedClicks } from './setup.js';

/**
 * The writer thread as the server runs it: the built thread script (npm test builds before it tests),
 * its own connection to a real database, clicks handed over through the shared ring.
 */
const THREAD = new URL('../../dist/analytics/write/click-writer-thread.js', import.meta.url);

function logger() {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    warn: (_details: object, message: string) => lines.push({ level: 'warn', message }),
    error: (_details: object, message: string) => lines.push({ level: 'error', message }),
  };
}

/** A click as the raw rows give it back: the strategy is rolled up only, the expired flag always read. */
const comparable = (click: ClickInput) => {
  const { linkId, orgId: _org, strategy: _strategy, ...rest } = click;
  return { linkId, ...rest, expired: click.expired ?? false, source: click.source ?? 'link' };
};

it('the thread script is built', () => {
  expect(existsSync(fileURLToPath(THREAD))).toBe(true);
});

describe.each(storeKinds)('click writer thread on $name', (kind) => {
  let testStore: TestStore;
  beforeAll(async () => {
    if (kind.skipReason) return;
    testStore = await kind.create();
  });
  afterAll(async () => {
    await testStore?.dispose();
  });

  const start = (orgLogger = logger(), spillDir?: string) =>
    createClickThread({
      file: THREAD,
      databaseUrl: testStore.url,
      ...(testStore.schema ? { schema: testStore.schema } : {}),
      logger: orgLogger,
      ringWords: 2 ** 14,
      ...(spillDir ? { spillDir } : {}),
    });

  it.skipIf(kind.skipReason)('flush writes every click recorded before it, every field intact', async () => {
    const sink = start();
    sink.start();
    const clicks = Array.from({ length: 300 }, (_, i) =>
      clickInput({
        orgId: 'org-flush',
        linkId: `link-${i % 3}`,
        at: NOW + i,
        bot: i % 10 === 0,
        variant: i % 2 === 0 ? null : 1,
        routed: i % 2 === 0 ? null : 'https://example.com/b',
        city: i % 3 === 0 ? 'Zürich' : null,
        device: i % 2 === 0 ? 'android' : 'desktop',
        sourceApp: i % 2 === 0 ? 'instagram' : null,
        referrerHost: 'l.instagram.com',
        platformKey: 'youtube',
        tapId: i % 4 === 0 ? `tap-${i}` : null,
        ...(i % 5 === 1 ? { source: 'qr' as const } : {}),
      }),
    );
    for (const click of clicks) sink.record(click);
    await sink.flush();
    const stored = await storedClicks(testStore.store, 'org-flush');
    const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at;
    expect(stored.sort(byTime).map(({ block: _b, index: _i, ...click }) => click)).toEqual(
      clicks.map(comparable),
    );
    expect(sink.stats()).toMatchObject({ pending: 0, written: 300, dropped: 0 });
    await sink.stop();
  });

  it.skipIf(kind.skipReason)(
    'no thread runs until the first click, which it then writes; spilled clicks start it at once',
    async () => {
      const spillDir = mkdtempSync(join(tmpdir(), 'linkhop-lazy-'));
      try {
        const idle = start(logger(), spillDir);
        idle.start();
        // memory() answers only for a running thread, and never starts one.
        expect(await idle.memory()).toBeUndefined();
        idle.record(clickInput({ orgId: 'org-lazy', at: NOW }));
        let memory = await idle.memory();
        for (let i = 0; i < 50 && !memory; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          memory = await idle.memory();
        }
        expect(memory?.heapUsed).toBeGreaterThan(0);
        await idle.flush();
        expect(await storedClicks(testStore.store, 'org-lazy')).toHaveLength(1);
        await idle.stop();

        // An earlier run's spill: start() starts the thread, which replays it with no click recorded.
        createClickSpill({ dir: spillDir }).append(
          Array.from({ length: 25 }, (_, i) => clickInput({ orgId: 'org-spilled', at: NOW + i })),
        );
        const spilled = start(logger(), spillDir);
        spilled.start();
        for (let i = 0; i < 100 && (await storedClicks(testStore.store, 'org-spilled')).length < 25; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(await storedClicks(testStore.store, 'org-spilled')).toHaveLength(25);
        await spilled.stop();
      } finally {
        rmSync(spillDir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(kind.skipReason)(
    'stop writes what was recorded and never flushed, then the thread ends',
    async () => {
      const sink = start();
      for (let i = 0; i < 1_234; i++) sink.record(clickInput({ orgId: 'org-stop', at: NOW + i }));
      await sink.stop();
      expect(await storedClicks(testStore.store, 'org-stop')).toHaveLength(1_234);
      expect(sink.stats()).toMatchObject({ pending: 0, written: 1_234 });
      // Stopped is stopped: a second stop is the same promise's outcome, not a new thread.
      await sink.stop();
    },
  );
});

describe('a writer thread that keeps dying', () => {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-thread-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is started again, then left down: flush resolves, record never throws, clicks are counted as waiting', async () => {
    const script = join(dir, 'dies.mjs');
    writeFileSync(script, 'process.exit(3);\n');
    const lines = logger();
    const sink = createClickThread({
      file: pathToFileURL(script),
      databaseUrl: 'sqlite::memory:',
      logger: lines,
      ringWords: 256,
    });
    sink.start();
    const flushed = sink.flush();
    for (let i = 0; i < 50; i++) expect(() => sink.record(clickInput({ at: NOW + i }))).not.toThrow();
    await flushed;
    expect(lines.lines.filter((line) => line.message.includes('starting it again')).length).toBe(4);
    expect(lines.lines.at(-1)?.message).toContain('left down');
    const stats = sink.stats();
    // The ring holds what fits; the rest is dropped and counted, nothing thrown, nothing written.
    expect(stats.written).toBe(0);
    expect(stats.pending + stats.dropped).toBe(50);
    expect(stats.dropped).toBeGreaterThan(0);
    await sink.stop();
  });
});
