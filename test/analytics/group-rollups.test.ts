import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClickhouseAnalytics } from '../../src/analytics/clickhouse/store.js';
import { type AnalyticsStore, createAnalyticsRepo, DAY_MS, type Scope } from '../../src/analytics/repo.js';
import { createFolderService } from '../../src/folders/service.js';
import type { Link } from '../../src/links/schema.js';
import { up } from '../../src/store/migrations/016-group-rollups.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { startClickhouse } from '../helpers/clickhouse.js';
import type { TestStore } from '../helpers/stores.js';
import {
  analyticsKinds,
  analyticsStore,
  clickInput,
  DAY,
  type Harness,
  makeHarness,
  makeOrg,
  NOW,
  TODAY,
} from './setup.js';

/**
 * Folder and tag views come from their own rollups (migration 016; on ClickHouse `group_rollups` with
 * the moved links corrected at read time). Rule: whatever happens to the links (clicks, a folder move, a
 * tag added or removed, archiving, a folder deleted), a folder's or a tag's view equals the sum of its
 * links' per-link views, for every dimension, every day, and every window.
 */

const DIMENSIONS = ['total', 'bot', 'country', 'device', 'platform', 'referrer', 'hour', 'outcome'];
const TODAY_DAY = Math.floor(NOW / DAY_MS);
const windowOf = (days: number) => ({ from: TODAY_DAY - days + 1, to: TODAY_DAY });
const WINDOWS = [1, 7, 30, 90].map(windowOf);
const QUARTER = windowOf(90);

for (const kind of analyticsKinds) {
  describe.skipIf(kind.skipReason !== null)(`folder and tag rollups on ${kind.name}`, () => {
    let testStore: TestStore;
    let h: Harness;
    let org: OrgContext;
    let repo: AnalyticsStore;
    const closers: (() => Promise<void>)[] = [];
    const folders: Record<'f' | 'g', string> = { f: '', g: '' };
    const links: Link[] = [];

    /** Clicks on each link, over 60 days, with varied dimensions; written through the batch writer. */
    async function click(round: number): Promise<void> {
      let n = 0;
      for (const [l, link] of links.entries()) {
        for (let i = 0; i < 12 + l * 3; i++) {
          n += 1;
          h.buffer.record(
            clickInput({
              orgId: org.orgId,
              linkId: link.id,
              at: TODAY - ((i * 7 + l + round) % 60) * DAY + ((n * 37) % 24) * 3_600_000,
              bot: n % 13 === 0,
              country: ['US', 'DE', null, 'FR'][n % 4] ?? null,
              device: (['ios', 'android', 'desktop'] as const)[n % 3],
              platformKey: n % 2 === 0 ? 'youtube' : null,
              referrerHost: n % 5 === 0 ? 't.co' : null,
            }),
          );
        }
      }
      await h.buffer.flush();
    }

    /** The scope's view from its summary rows equals the sum of the member links' per-link rows. */
    async function expectSumOfLinks(scope: Scope, members: Link[]): Promise<void> {
      const ids = members.map((link) => link.id);
      for (const window of WINDOWS) {
        const perLink = new Map<string, number>();
        for (const row of await repo.linkSums(org.orgId, ids, DIMENSIONS, window)) {
          const key = `${row.dimension}\n${row.value}`;
          perLink.set(key, (perLink.get(key) ?? 0) + row.clicks);
        }
        const expected = [...perLink].filter(([, clicks]) => clicks !== 0).sort();
        const got = (await repo.sums(scope, DIMENSIONS, window)).map(
          (row) => [`${row.dimension}\n${row.value}`, row.clicks] as [string, number],
        );
        expect(got.sort()).toEqual(expected);
        // The per-link list (only members, each with its own total) and the daily series too.
        const totals = await repo.linkTotals(scope, window);
        expect(totals.every((row) => ids.includes(row.id) && row.clicks > 0)).toBe(true);
        let byLinks = 0;
        for (const id of ids) {
          const [one] = await repo.linkTotals({ orgId: org.orgId, linkId: id }, window);
          expect(totals.find((row) => row.id === id)?.clicks ?? 0).toBe(one?.clicks ?? 0);
          byLinks += one?.clicks ?? 0;
        }
        const daily = [...(await repo.daily(scope, window)).values()].reduce((a, b) => a + b, 0);
        expect(daily).toBe(byLinks);
      }
    }

    const members = (predicate: (link: Link) => boolean) => links.filter(predicate);
    const inFolder = (id: string) => members((link) => link.folderId === id);
    const withTag = (tag: string) => members((link) => link.tags.includes(tag));

    async function expectAllGroups(): Promise<void> {
      for (const id of Object.values(folders))
        await expectSumOfLinks({ orgId: org.orgId, folderId: id }, inFolder(id));
      for (const tag of ['a', 'b', 'c']) await expectSumOfLinks({ orgId: org.orgId, tag }, withTag(tag));
    }

    async function refresh(): Promise<void> {
      for (const [i, link] of links.entries()) links[i] = await h.links.get(org, link.id);
    }

    beforeAll(async () => {
      testStore = await analyticsStore(kind.store);
      if (kind.clickhouse) {
        const ch = await startClickhouse();
        const opened = await openClickhouseAnalytics(
          ch.urlFor(`g_${crypto.randomUUID().slice(0, 8)}`),
          testStore.store,
        );
        closers.push(
          () => opened.close(),
          () => ch.stop(),
        );
        repo = opened.store;
        h = makeHarness(testStore.store, { repo });
      } else {
        h = makeHarness(testStore.store);
        repo = createAnalyticsRepo(testStore.store);
      }
      org = await makeOrg(testStore.store, 'legend');
      for (const key of ['f', 'g'] as const) {
        folders[key] = crypto.randomUUID();
        await testStore.store.db
          .insertInto('folders')
          .values({ id: folders[key], org_id: org.orgId, name: key, created_at: new Date(NOW).toISOString() })
          .execute();
      }
      const specs = [
        { folderId: folders.f, tags: ['a'] },
        { folderId: folders.f, tags: ['a', 'b'] },
        { folderId: null, tags: ['b'] },
        { folderId: folders.g, tags: [] },
        { folderId: null, tags: [] },
      ];
      for (const [i, spec] of specs.entries())
        links.push(await h.links.create(org, { url: `https://example.com/${i}`, slug: `g${i}`, ...spec }));
      await click(0);
    });
    afterAll(async () => {
      for (const close of closers) await close();
      await testStore?.dispose();
    });

    it('a folder or a tag reads what its links add up to, after clicks through the batch writer', async () => {
      const total = (await repo.sums({ orgId: org.orgId, folderId: folders.f }, ['total'], QUARTER))[0];
      expect(total?.clicks).toBeGreaterThan(0);
      await expectAllGroups();
    });

    it('stays right when a link moves to another folder, and after more clicks', async () => {
      const link = links[0] as Link;
      await h.links.update(org, link.id, { folderId: folders.g });
      await refresh();
      expect(inFolder(folders.g).map((l) => l.id)).toContain(link.id);
      await expectAllGroups();
      await click(1);
      await expectAllGroups();
    });

    it('stays right when tags are added and removed', async () => {
      await h.links.update(org, (links[2] as Link).id, { tags: ['a', 'c'] });
      await h.links.update(org, (links[1] as Link).id, { tags: [] });
      await h.links.update(org, (links[4] as Link).id, { tags: ['c'], folderId: folders.f });
      await refresh();
      expect(withTag('b')).toEqual([]);
      await expectAllGroups();
      // A tag nobody carries any more reads as empty, not as a list of zeros.
      expect(await repo.sums({ orgId: org.orgId, tag: 'b' }, DIMENSIONS, QUARTER)).toEqual([]);
      await click(2);
      await expectAllGroups();
    });

    it('keeps an archived link in its folder and tags (archiving moves nothing)', async () => {
      await h.links.archive(org, (links[1] as Link).id);
      await h.links.archive(org, (links[3] as Link).id);
      await refresh();
      await expectAllGroups();
    });

    it('a deleted folder takes its rollups with it; its links keep their own', async () => {
      const service = createFolderService({
        store: testStore.store,
        now: () => new Date(NOW),
        uuid: () => '',
      });
      // Sorted: ClickHouse answers a GROUP BY in no fixed order.
      const linkSums = async () =>
        (await repo.sums({ orgId: org.orgId, linkId: (links[0] as Link).id }, DIMENSIONS, QUARTER)).sort(
          (a, b) => a.dimension.localeCompare(b.dimension) || a.value.localeCompare(b.value),
        );
      const before = await linkSums();
      await service.remove(org, folders.g);
      await refresh();
      expect(inFolder(folders.g)).toEqual([]);
      expect(await repo.sums({ orgId: org.orgId, folderId: folders.g }, DIMENSIONS, QUARTER)).toEqual([]);
      expect(await linkSums()).toEqual(before);
      await expectAllGroups();
    });

    it('tap outcomes reach the groups of their link', async () => {
      const link = links[4] as Link;
      const inserted = await repo.insertOutcome({
        tapId: crypto.randomUUID(),
        orgId: org.orgId,
        linkId: link.id,
        day: TODAY_DAY,
        outcome: 'opened',
        variant: null,
        platformKey: 'youtube',
        at: NOW,
      });
      expect(inserted).toBe(true);
      const outcomes = await repo.sums({ orgId: org.orgId, tag: 'c' }, ['outcome'], windowOf(1));
      expect(outcomes).toEqual([{ dimension: 'outcome', value: 'opened', clicks: 1 }]);
      await expectAllGroups();
    });

    it.skipIf(kind.clickhouse)(
      'the migration backfills folder and tag rollups from the per-link rows already there',
      async () => {
        const db = testStore.store.db as unknown as Kysely<unknown>;
        await db.schema.dropTable('link_group_versions').execute();
        await db.schema.dropTable('group_rollups').execute();
        await up(db);
        await expectAllGroups();
      },
    );
  });
}
