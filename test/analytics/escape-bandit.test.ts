import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEscapeBandit } from '../../src/analytics/read/escape-bandit.js';
import { cellKeyOf } from '../../src/core/escape/bandit.js';
import type { EscapeStrategy } from '../../src/core/escape/index.js';
import type { Link } from '../../src/links/schema.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { seeded } from '../helpers/seeded.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { analyticsStore, type Harness, makeHarness, makeOrg, NOW } from './setup.js';

/**
 * The bandit's refresher over a real store: it reads every organization's outcomes per cell, rebuilds its
 * table off the request path, and keeps the last table when the store cannot be read.
 */

const KEY = cellKeyOf('tiktok', 'ios', 'spotify');
const ALLOWED: readonly EscapeStrategy[] = ['x-safari', 'scheme'];

function quietLogger() {
  const lines: string[] = [];
  return { lines, warn: (_details: object, message: string) => void lines.push(message) };
}

/** How often each strategy comes out of `draws` visits. */
function tally(choose: () => EscapeStrategy | undefined, draws: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < draws; i++) {
    const key = choose() ?? 'first';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`escape bandit over ${kind.name}`, () => {
    let testStore: TestStore;
    let h: Harness;

    /** `count` TikTok-on-iOS taps of `link` with `strategy`, `opened` of them opening the app. */
    async function outcomes(
      org: OrgContext,
      link: Link,
      strategy: EscapeStrategy,
      count: number,
      opened: number,
    ) {
      for (let i = 0; i < count; i++) {
        const token = h.tapTokens.issue({
          tapId: crypto.randomUUID(),
          linkId: link.id,
          orgId: org.orgId,
          slug: link.slug,
          shortHost: 'lnk.example',
          platformKey: link.platformKey,
          sourceApp: 'tiktok',
          country: null,
          city: null,
          device: 'ios',
          ts: new Date(NOW).toISOString(),
          variant: null,
          strategy,
        });
        expect(await h.analytics.recordOutcome(token, i < opened ? 'opened' : 'browser')).toBe(true);
      }
    }

    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      h = makeHarness(testStore.store);
    });
    afterAll(async () => {
      await testStore?.dispose();
    });

    it("keeps the matrix's first choice until 50 outcomes, then sends most taps to the better strategy", async () => {
      const first = await makeOrg(h.store, 'legend');
      const second = await makeOrg(h.store, 'hero');
      const a = await h.links.create(first, { url: 'https://open.spotify.com/track/1' });
      const b = await h.links.create(second, { url: 'https://open.spotify.com/track/2' });
      const logger = quietLogger();
      const bandit = createEscapeBandit({
        readOutcomes: (days) => h.analytics.allOrgCellOutcomes(days),
        random: seeded(11),
        logger,
      });
      // Never asked about: no entry, whatever the data.
      expect(await bandit.refresh()).toBe(true);
      expect(bandit.table().size).toBe(0);
      // Asked once (the visit gets the first choice), then known at the next refresh.
      expect(bandit.choose(KEY, ALLOWED)).toBeUndefined();

      // 45 outcomes across two organizations: still warming up.
      await outcomes(first, a, 'x-safari', 30, 9);
      await outcomes(second, b, 'scheme', 15, 11);
      await bandit.refresh();
      expect(bandit.table().has(KEY)).toBe(false);
      expect(tally(() => bandit.choose(KEY, ALLOWED), 200)).toEqual({ first: 200 });

      // Five more: 50 outcomes, 0.3 against ~0.75, and the table follows the outcomes.
      await outcomes(second, b, 'scheme', 5, 4);
      await bandit.refresh();
      expect(bandit.table().get(KEY)?.allowed).toEqual(ALLOWED);
      const counts = tally(() => bandit.choose(KEY, ALLOWED), 4000);
      expect(counts.first).toBeUndefined();
      // The worse strategy keeps its 5 % floor of exploration, no less.
      expect((counts['x-safari'] ?? 0) / 4000).toBeGreaterThan(0.035);
      expect((counts['x-safari'] ?? 0) / 4000).toBeLessThan(0.08);
      expect((counts.scheme ?? 0) / 4000).toBeGreaterThan(0.9);
      // A visit asking with another allowed list (an operator's override) gets the first choice.
      expect(bandit.choose(KEY, ['scheme', 'x-safari'])).toBeUndefined();
      expect(logger.lines).toEqual([]);
    });

    it('is deterministic under a seed', async () => {
      const run = async () => {
        const bandit = createEscapeBandit({
          readOutcomes: (days) => h.analytics.allOrgCellOutcomes(days),
          random: seeded(5),
          logger: quietLogger(),
        });
        bandit.choose(KEY, ALLOWED);
        await bandit.refresh();
        return Array.from({ length: 200 }, () => bandit.choose(KEY, ALLOWED));
      };
      expect(await run()).toEqual(await run());
    });
  });
}

describe.each(storeKinds.filter((kind) => kind.skipReason === null))(
  'escape bandit when $name fails',
  (kind) => {
    it('keeps the last table, logs once per outage, and never throws to a visit', async () => {
      const testStore = await analyticsStore(kind);
      const h = makeHarness(testStore.store);
      const logger = quietLogger();
      const bandit = createEscapeBandit({
        readOutcomes: (days) => h.analytics.allOrgCellOutcomes(days),
        random: seeded(3),
        logger,
      });
      const org = await makeOrg(h.store, 'legend');
      const link = await h.links.create(org, { url: 'https://open.spotify.com/track/9' });
      for (let i = 0; i < 60; i++) {
        const token = h.tapTokens.issue({
          tapId: crypto.randomUUID(),
          linkId: link.id,
          orgId: org.orgId,
          slug: link.slug,
          shortHost: 'lnk.example',
          platformKey: 'spotify',
          sourceApp: 'tiktok',
          country: null,
          city: null,
          device: 'ios',
          ts: new Date(NOW).toISOString(),
          variant: null,
          strategy: i % 2 ? 'scheme' : 'x-safari',
        });
        await h.analytics.recordOutcome(token, i % 2 ? 'opened' : 'broken');
      }
      bandit.choose(KEY, ALLOWED);
      expect(await bandit.refresh()).toBe(true);
      const before = bandit.table();
      expect(before.has(KEY)).toBe(true);

      // The database goes away (its pool closed under the bandit): reads throw.
      await testStore.dispose();
      expect(await bandit.refresh()).toBe(false);
      expect(await bandit.refresh()).toBe(false);
      expect(bandit.table()).toBe(before);
      expect(logger.lines).toEqual(['escape bandit: outcomes not read, keeping the last table']);
      const counts = tally(() => bandit.choose(KEY, ALLOWED), 1000);
      expect((counts.scheme ?? 0) / 1000).toBeGreaterThan(0.9);
    });
  },
);

describe('escape bandit timer', () => {
  it('rebuilds at most once a minute, even when asked for a shorter period, and stops', async () => {
    vi.useFakeTimers();
    try {
      let reads = 0;
      const bandit = createEscapeBandit({
        readOutcomes: async () => {
          reads += 1;
          return new Map();
        },
        random: seeded(1),
        logger: quietLogger(),
        refreshMs: 1000,
      });
      bandit.start();
      await vi.advanceTimersByTimeAsync(59_000);
      expect(reads).toBe(1);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(reads).toBe(2);
      await bandit.stop();
      await vi.advanceTimersByTimeAsync(180_000);
      expect(reads).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('builds a big table in slices, letting the event loop serve between them', async () => {
    const strategies: EscapeStrategy[] = ['scheme', 'x-safari'];
    const keys = Array.from({ length: 2000 }, (_, i) => cellKeyOf(`app${i}`, 'ios', 'spotify'));
    const outcomes = new Map(
      keys.map((key) => [
        key,
        new Map<EscapeStrategy, { opened: number; outcomes: number }>([
          ['scheme', { opened: 40, outcomes: 60 }],
          ['x-safari', { opened: 20, outcomes: 60 }],
        ]),
      ]),
    );
    const bandit = createEscapeBandit({
      readOutcomes: async () => outcomes,
      random: seeded(2),
      logger: quietLogger(),
    });
    for (const key of keys) bandit.choose(key, strategies);
    let turns = 0;
    let done = false;
    const spin = () => {
      if (done) return;
      turns += 1;
      setImmediate(spin);
    };
    setImmediate(spin);
    await bandit.refresh();
    done = true;
    expect(bandit.table().size).toBe(2000);
    // Two thousand cells of Monte Carlo are far more than one slice: visits got turns in between.
    expect(turns).toBeGreaterThan(5);
  });

  it('remembers at most maxCells cells, and none with a single allowed strategy', () => {
    const bandit = createEscapeBandit({
      readOutcomes: async () => new Map(),
      random: seeded(1),
      logger: quietLogger(),
      maxCells: 2,
    });
    expect(bandit.choose('a|ios|x', ['scheme'])).toBeUndefined();
    expect(bandit.stats().cells).toBe(0);
    for (const key of ['a|ios|x', 'b|ios|x', 'c|ios|x', 'a|ios|x']) bandit.choose(key, ALLOWED);
    expect(bandit.stats().cells).toBe(2);
  });
});
