import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEraseRepo } from '../../src/accounts/erase-repo.js';
import { createGroupHistory } from '../../src/analytics/clickhouse/group-history.js';
import { folderGroup, tagGroup } from '../../src/analytics/model.js';
import { MOVE_LEAD_DAYS } from '../../src/analytics/write/group-history-repo.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { createLinkRepo } from '../../src/links/repo.js';
import type { Link } from '../../src/links/schema.js';
import { createLinkService, type LinkService } from '../../src/links/service.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { analyticsStore, DAY, type Harness, makeHarness, makeOrg, NOW } from './setup.js';

/**
 * The links' group history (migration 033) and the ClickHouse stamper reading it. Rule: a move made on
 * day D leaves every stamp of a day up to D + 1 as it was and applies from D + 2; a link never moved is
 * stamped with its current groups, a link that is not the organization's with none.
 */

const D = Math.floor(NOW / DAY);

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`link group history on ${kind.name}`, () => {
    let testStore: TestStore;
    let h: Harness;
    let org: OrgContext;
    let other: OrgContext;
    let slugs = 0;

    /** The link service on a clock `days` after the harness's (which is fixed at NOW, day D). */
    const linksOn = (days: number): LinkService =>
      createLinkService({
        repo: createLinkRepo(testStore.store),
        table: createPlatformTable(),
        baseUrl: 'https://lnk.example',
        now: () => new Date(NOW + days * DAY),
        uuid: randomUUID,
        randomBytes: (size) => randomBytes(size),
        invalidate: () => {},
        events: { emitIn: async () => 0, nudge: () => {} },
        reapplyLinkCap: async () => {},
      });

    async function folder(owner: OrgContext = org): Promise<string> {
      const id = randomUUID();
      await testStore.store.db
        .insertInto('folders')
        .values({ id, org_id: owner.orgId, name: id, created_at: new Date(NOW).toISOString() })
        .execute();
      return id;
    }

    async function link(spec: { folderId?: string | null; tags?: string[] }, owner = org): Promise<Link> {
      slugs += 1;
      return h.links.create(owner, {
        url: `https://example.com/${slugs}`,
        slug: `h${slugs}`,
        folderId: spec.folderId ?? null,
        tags: spec.tags ?? [],
      });
    }

    /** (effective day, group) rows of a link's history, in order. */
    async function rowsOf(linkId: string): Promise<[number, string][]> {
      const rows = await testStore.store.db
        .selectFrom('link_group_history')
        .select(['effective_day', 'grp'])
        .where('link_id', '=', linkId)
        .orderBy('effective_day')
        .orderBy('grp')
        .execute();
      return rows.map((row) => [Number(row.effective_day), row.grp]);
    }

    /** The stamps of one link of `org` on each of `days`, from a fresh stamper. */
    async function stampsOn(linkId: string, days: number[]): Promise<string[][]> {
      return createGroupHistory(testStore.store).stamps(
        days.map((day) => ({ orgId: org.orgId, linkId, day })),
      );
    }

    beforeAll(async () => {
      testStore = await analyticsStore(kind);
      h = makeHarness(testStore.store);
      org = await makeOrg(testStore.store, 'legend');
      other = await makeOrg(testStore.store, 'legend');
    });
    afterAll(async () => {
      await testStore?.dispose();
    });

    it('a link never moved is stamped with its current groups on any day; another organization’s link, or none, with no group', async () => {
      const f = await folder();
      const never = await link({ folderId: f, tags: ['b', 'a'] });
      const theirs = await link({ tags: ['a'] }, other);
      const stamps = await createGroupHistory(testStore.store).stamps([
        { orgId: org.orgId, linkId: never.id, day: 0 },
        { orgId: org.orgId, linkId: never.id, day: D + 400 },
        { orgId: other.orgId, linkId: never.id, day: D },
        { orgId: org.orgId, linkId: theirs.id, day: D },
        { orgId: other.orgId, linkId: theirs.id, day: D },
        { orgId: org.orgId, linkId: 'no-such-link', day: D },
      ]);
      const current = [folderGroup(f), tagGroup('a'), tagGroup('b')];
      expect(stamps).toEqual([current, current, [], [], [tagGroup('a')], []]);
      expect(await rowsOf(never.id)).toEqual([]);
    });

    it('a move on day D changes stamps from D + 2 on; a second move that day replaces it, a move the next day adds a segment', async () => {
      expect(MOVE_LEAD_DAYS).toBe(2);
      const [f, g] = [await folder(), await folder()];
      const moving = await link({ folderId: f });
      await h.links.update(org, moving.id, { folderId: g });
      expect(await rowsOf(moving.id)).toEqual([
        [0, folderGroup(f)],
        [D + 2, folderGroup(g)],
      ]);
      expect(await stampsOn(moving.id, [D - 30, D, D + 1, D + 2, D + 30])).toEqual([
        [folderGroup(f)],
        [folderGroup(f)],
        [folderGroup(f)],
        [folderGroup(g)],
        [folderGroup(g)],
      ]);

      // The same day again: the last move wins, the stamps up to D + 1 are still the first set.
      await h.links.update(org, moving.id, { folderId: null, tags: ['x'] });
      expect(await rowsOf(moving.id)).toEqual([
        [0, folderGroup(f)],
        [D + 2, tagGroup('x')],
      ]);
      expect(await stampsOn(moving.id, [D + 1, D + 2])).toEqual([[folderGroup(f)], [tagGroup('x')]]);

      // The next day: D + 2 keeps what the first day's moves gave it, D + 3 takes the new set.
      await linksOn(1).update(org, moving.id, { tags: ['y'] });
      expect(await rowsOf(moving.id)).toEqual([
        [0, folderGroup(f)],
        [D + 2, tagGroup('x')],
        [D + 3, tagGroup('y')],
      ]);
      expect(await stampsOn(moving.id, [0, D + 1, D + 2, D + 3, D + 9])).toEqual([
        [folderGroup(f)],
        [folderGroup(f)],
        [tagGroup('x')],
        [tagGroup('y')],
        [tagGroup('y')],
      ]);
    });

    it('tags added and removed are moves; a move to no group is stored as one empty group and stamps none', async () => {
      const tagged = await link({ tags: ['a'] });
      await h.links.update(org, tagged.id, { tags: ['a', 'b'] });
      await linksOn(1).update(org, tagged.id, { tags: [] });
      expect(await rowsOf(tagged.id)).toEqual([
        [0, tagGroup('a')],
        [D + 2, tagGroup('a')],
        [D + 2, tagGroup('b')],
        [D + 3, ''],
      ]);
      expect(await stampsOn(tagged.id, [D + 1, D + 2, D + 3])).toEqual([
        [tagGroup('a')],
        [tagGroup('a'), tagGroup('b')],
        [],
      ]);

      // From no group at all: the day-0 segment is the empty one.
      const bare = await link({});
      await h.links.update(org, bare.id, { tags: ['c'] });
      expect(await rowsOf(bare.id)).toEqual([
        [0, ''],
        [D + 2, tagGroup('c')],
      ]);
      expect(await stampsOn(bare.id, [D, D + 2])).toEqual([[], [tagGroup('c')]]);
    });

    it('an edit that moves nothing records nothing', async () => {
      const still = await link({ tags: ['a'] });
      await h.links.update(org, still.id, { url: 'https://example.com/elsewhere' });
      expect(await rowsOf(still.id)).toEqual([]);
    });

    it('one stamper: a move invalidates what it cached of the organization, and only then', async () => {
      const [f, g] = [await folder(), await folder()];
      const moving = await link({ folderId: f });
      const quiet = await link({ tags: ['q'] });
      const stamper = createGroupHistory(testStore.store);
      const ask = (linkId: string) =>
        stamper.stamps([
          { orgId: org.orgId, linkId, day: D + 1 },
          { orgId: org.orgId, linkId, day: D + 2 },
        ]);
      expect(await ask(moving.id)).toEqual([[folderGroup(f)], [folderGroup(f)]]);
      expect(await ask(quiet.id)).toEqual([[tagGroup('q')], [tagGroup('q')]]);

      await h.links.update(org, moving.id, { folderId: g });
      expect(await ask(moving.id)).toEqual([[folderGroup(f)], [folderGroup(g)]]);
      expect(await ask(quiet.id)).toEqual([[tagGroup('q')], [tagGroup('q')]]);

      // A change behind the cache's back (no version bump) is not seen until the organization's version
      // moves on: the stamper reads each link once per version, not once per batch.
      await testStore.store.db
        .updateTable('link_tags')
        .set({ tag: 'r' })
        .where('link_id', '=', quiet.id)
        .execute();
      expect(await ask(quiet.id)).toEqual([[tagGroup('q')], [tagGroup('q')]]);
      await h.links.update(org, moving.id, { folderId: f });
      expect(await ask(quiet.id)).toEqual([[tagGroup('r')], [tagGroup('r')]]);
      expect(await ask(moving.id)).toEqual([[folderGroup(f)], [folderGroup(f)]]);
    });

    it('a cache past its size cap starts over and stamps the same', async () => {
      const f = await folder();
      const links = [await link({ folderId: f }), await link({ tags: ['s'] }), await link({})];
      const stamper = createGroupHistory(testStore.store, { maxLinks: 1 });
      const items = links.map((l) => ({ orgId: org.orgId, linkId: l.id, day: D }));
      const expected = [[folderGroup(f)], [tagGroup('s')], []];
      expect(await stamper.stamps(items)).toEqual(expected);
      expect(await stamper.stamps(items)).toEqual(expected);
      expect(await stamper.stamps([...items].reverse())).toEqual([...expected].reverse());
    });

    it('moved lists exactly the links whose history mentions the group, whether they are in it now, and their segments', async () => {
      const [f, g] = [await folder(), await folder()];
      const left = await link({ folderId: f });
      const joined = await link({ folderId: g, tags: ['m'] });
      const gone = await link({ folderId: f });
      await link({ folderId: f }); // never moved: stamped with what it is in, not listed
      const elsewhere = await link({ tags: ['m'] }, other);
      await h.links.update(org, left.id, { folderId: g });
      await h.links.update(org, joined.id, { folderId: f });
      await h.links.update(org, gone.id, { folderId: null });
      await h.links.update(other, elsewhere.id, { tags: [] });
      await testStore.store.db.deleteFrom('links').where('id', '=', gone.id).execute();

      const history = createGroupHistory(testStore.store);
      const moved = await history.moved(org.orgId, folderGroup(f));
      const byId = (a: { linkId: string }, b: { linkId: string }) => (a.linkId < b.linkId ? -1 : 1);
      expect([...moved].sort(byId)).toEqual(
        [
          {
            linkId: left.id,
            member: false,
            segments: [
              { from: 0, groups: [folderGroup(f)] },
              { from: D + 2, groups: [folderGroup(g)] },
            ],
          },
          {
            linkId: joined.id,
            member: true,
            segments: [
              { from: 0, groups: [folderGroup(g), tagGroup('m')] },
              { from: D + 2, groups: [folderGroup(f), tagGroup('m')] },
            ],
          },
          {
            linkId: gone.id,
            member: false,
            segments: [
              { from: 0, groups: [folderGroup(f)] },
              { from: D + 2, groups: [] },
            ],
          },
        ].sort(byId),
      );
      // A tag is the organization's own: another organization's moves under the same name are not listed.
      expect((await history.moved(org.orgId, tagGroup('m'))).map((l) => [l.linkId, l.member])).toEqual([
        [joined.id, true],
      ]);
      expect((await history.moved(other.orgId, tagGroup('m'))).map((l) => [l.linkId, l.member])).toEqual([
        [elsewhere.id, false],
      ]);
      expect(await history.moved(org.orgId, tagGroup('never-there'))).toEqual([]);
      // A deleted link keeps its history: its stamps stay what they were.
      expect(
        await history.stamps([
          { orgId: org.orgId, linkId: gone.id, day: D + 1 },
          { orgId: org.orgId, linkId: gone.id, day: D + 2 },
        ]),
      ).toEqual([[folderGroup(f)], []]);
    });

    it('erasing an organization’s data takes its history rows, and only its', async () => {
      const theirs = await link({ tags: ['e'] }, other);
      await h.links.update(other, theirs.id, { tags: ['e', 'f'] });
      const count = async (orgId: string) =>
        (
          await testStore.store.db
            .selectFrom('link_group_history')
            .select('link_id')
            .where('org_id', '=', orgId)
            .execute()
        ).length;
      expect(await count(org.orgId)).toBeGreaterThan(0);
      const before = await count(other.orgId);
      expect(before).toBeGreaterThan(0);
      const erase = createEraseRepo(testStore.store);
      await erase.transaction((trx) =>
        erase.eraseOrganizationData(trx, org.orgId, new Date(NOW).toISOString()),
      );
      expect(await count(org.orgId)).toBe(0);
      expect(await count(other.orgId)).toBe(before);
    });
  });
}
