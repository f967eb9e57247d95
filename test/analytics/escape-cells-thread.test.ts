import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/analytics/model.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { createClickThread } from '../../src/analytics/write/click-thread.js';
import { ESCAPE_STRATEGIES } from '../../src/core/escape/index.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { clickInput, NOW, silent } from './setup.js';

/**
 * The running server's path for a tap: the redirect writes the click (with its escape strategy, three
 * bits of the ring's head word) into the shared ring, the built writer thread reads it and rolls it up
 * into its cell on its own connection.
 */
const THREAD = new URL('../../dist/analytics/write/click-writer-thread.js', import.meta.url);

describe.each(storeKinds)('escape strategies across the click writer thread on $name', (kind) => {
  let testStore: TestStore;
  beforeAll(async () => {
    if (kind.skipReason) return;
    testStore = await kind.create();
  });
  afterAll(async () => {
    await testStore?.dispose();
  });

  it.skipIf(kind.skipReason)(
    'every strategy reaches its cell rollup; clicks without a page reach none',
    async () => {
      const sink = createClickThread({
        file: THREAD,
        databaseUrl: testStore.url,
        ...(testStore.schema ? { schema: testStore.schema } : {}),
        logger: silent,
        ringWords: 2 ** 14,
      });
      sink.start();
      ESCAPE_STRATEGIES.forEach((strategy, i) => {
        for (let n = 0; n <= i; n++)
          sink.record(
            clickInput({
              orgId: 'org-thread',
              linkId: 'link-thread',
              device: 'android',
              sourceApp: 'tiktok',
              platformKey: 'spotify',
              tapId: `tap-${strategy}-${n}`,
              strategy,
            }),
          );
      });
      sink.record(clickInput({ orgId: 'org-thread', linkId: 'link-thread', device: 'desktop' }));
      await sink.flush();
      await sink.stop();
      const day = Math.floor(NOW / DAY_MS);
      const sums = await createAnalyticsRepo(testStore.store).sums(
        { orgId: 'org-thread' },
        ['cell', 'total'],
        { from: day, to: day },
      );
      const counts = Object.fromEntries(sums.map((sum) => [`${sum.dimension}:${sum.value}`, sum.clicks]));
      expect(counts).toEqual({
        'total:': 22,
        ...Object.fromEntries(ESCAPE_STRATEGIES.map((s, i) => [`cell:tiktok|android|spotify|${s}`, i + 1])),
      });
    },
  );
});
