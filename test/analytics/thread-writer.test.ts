import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickInput, createClickBuffer } from '../../src/analytics/click-buffer.js';
import { createThreadWriter, type ThreadWriter } from '../../src/analytics/thread-writer.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';
import { NOW, silent } from './setup.js';

/**
 * The SQLite click writer thread, from the build (`npm test` builds before it runs the suites): batches
 * cross to the thread, land in the same file through its own connection, in recording order, and a
 * thread that cannot write rejects so the buffer keeps the rows.
 */
const THREAD = new URL('../../dist/analytics/writer-thread.js', import.meta.url);
const built = existsSync(fileURLToPath(THREAD));

const click = (linkId: string, at: number, country: string): ClickInput => ({
  linkId,
  orgId: 'org-thread',
  at,
  bot: false,
  variant: null,
  routed: null,
  country,
  city: null,
  device: 'ios',
  sourceApp: 'instagram',
  referrerHost: null,
  platformKey: 'youtube',
  tapId: null,
});

describe.skipIf(!built)('the SQLite click writer thread', () => {
  let testStore: TestStore;
  let writer: ThreadWriter;
  beforeAll(async () => {
    testStore = await sqliteKind.create();
    writer = createThreadWriter(testStore.url, THREAD);
  });
  afterAll(async () => {
    await writer?.close();
    await testStore?.dispose();
  });

  it('writes batches into the same file, rollups included, each click once', async () => {
    await writer.write([click('link-a', NOW, 'US'), click('link-a', NOW, 'DE'), click('link-b', NOW, 'US')]);
    await writer.write([click('link-a', NOW + 1, 'US')]);
    const { db } = testStore.store;
    const rows = await db
      .selectFrom('clicks')
      .select(['link_id', 'country'])
      .where('org_id', '=', 'org-thread')
      .execute();
    expect(rows).toHaveLength(4);
    const total = await db
      .selectFrom('click_rollups')
      .select(['link_id', 'count'])
      .where('dimension', '=', 'total')
      .orderBy('link_id')
      .execute();
    expect(total.map((row) => [row.link_id, Number(row.count)])).toEqual([
      ['link-a', 3],
      ['link-b', 1],
    ]);
  });

  it('keeps the recording order of clicks that share a millisecond, across batches', async () => {
    const at = NOW + 5_000;
    await writer.write([click('link-order', at, 'AA'), click('link-order', at, 'BB')]);
    await writer.write([click('link-order', at, 'CC')]);
    const rows = await testStore.store.db
      .selectFrom('clicks')
      .select(['country'])
      .where('link_id', '=', 'link-order')
      .orderBy('id')
      .execute();
    expect(rows.map((row) => row.country)).toEqual(['AA', 'BB', 'CC']);
  });

  it('the buffer drains through the thread on stop()', async () => {
    const buffer = createClickBuffer({ store: testStore.store, logger: silent, write: writer.write });
    buffer.start();
    for (let i = 0; i < 2_500; i++) buffer.record(click('link-drain', NOW + i, 'US'));
    await buffer.stop();
    const row = await testStore.store.db
      .selectFrom('clicks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('link_id', '=', 'link-drain')
      .executeTakeFirstOrThrow();
    expect(Number(row.n)).toBe(2_500);
  });

  it('a thread that cannot open its database rejects the batch, so the buffer keeps it', async () => {
    // A directory where the file should be: the thread's connection fails as it starts.
    const dir = join(dirname(testStore.url.slice('sqlite:'.length)), 'not-a-file.db');
    mkdirSync(dir, { recursive: true });
    const broken = createThreadWriter(`sqlite:${dir}`, THREAD);
    await expect(broken.write([click('link-x', NOW, 'US')])).rejects.toThrow();
    const errors: unknown[] = [];
    const buffer = createClickBuffer({
      store: testStore.store,
      logger: { warn: () => {}, error: (details) => errors.push(details) },
      write: broken.write,
    });
    buffer.record(click('link-x', NOW, 'US'));
    await buffer.flush();
    expect(buffer.stats().pending).toBe(1);
    expect(errors).toHaveLength(1);
    await broken.close();
  });
});
