import { randomUUID } from 'node:crypto';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BLOCK_CLICKS, packBlocks, unpackBlock } from '../../src/analytics/click-blocks.js';
import type { ClickRow } from '../../src/analytics/model.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { toRow } from '../../src/analytics/write/rollups.js';
import { migrateToLatest, type Store } from '../../src/store/database.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { despiteSchemaDrops, sqliteKind, storeKinds, type TestStore } from '../helpers/stores.js';
import { clickInput, NOW, storedClicks } from './setup.js';

/**
 * Raw clicks are packed per link per batch (click-blocks.ts). These check the packing round trip, that
 * the two raw reads merge blocks that overlap in time (two instances writing at once), and that the
 * migration moves the old row-per-click table over without losing a click.
 */

const click = clickInput;

describe('packing', () => {
  it('a batch becomes one block per link, and unpacks to the same clicks in recording order', () => {
    const rows = [
      click({ at: NOW + 5, city: 'São Paulo', routed: 'https://e.x/"quoted"', tapId: 't1', variant: 1 }),
      click({ linkId: 'link-2', at: NOW, bot: true, device: 'desktop', country: null }),
      click({ at: NOW + 2, sourceApp: 'instagram', referrerHost: 't.co', platformKey: 'youtube' }),
    ].map(toRow);
    const blocks = packBlocks(rows);
    expect(blocks.map((b) => [b.link_id, b.first_at, b.last_at, b.humans])).toEqual([
      ['link-1', NOW + 2, NOW + 5, 2],
      ['link-2', NOW, NOW, 0],
    ]);
    const [one, two] = blocks;
    expect(unpackBlock(7, NOW + 2, one?.data ?? '')).toEqual([
      expect.objectContaining({
        block: 7,
        index: 0,
        at: NOW + 5,
        city: 'São Paulo',
        tapId: 't1',
        variant: 1,
      }),
      expect.objectContaining({ index: 1, at: NOW + 2, sourceApp: 'instagram', referrerHost: 't.co' }),
    ]);
    expect(unpackBlock(8, NOW, two?.data ?? '')).toEqual([
      {
        block: 8,
        index: 0,
        at: NOW,
        bot: true,
        variant: null,
        routed: null,
        country: null,
        city: null,
        device: 'desktop',
        sourceApp: null,
        referrerHost: null,
        platformKey: null,
        tapId: null,
        expired: false,
        source: 'link',
      },
    ]);
  });

  it("a QR code's visit keeps its source through packing, with and without a tap id or the expired flag", () => {
    const rows = [
      click({ at: NOW, source: 'qr' }),
      click({ at: NOW + 1, source: 'qr', tapId: 't1' }),
      click({ at: NOW + 2, source: 'qr', expired: true }),
      click({ at: NOW + 3, expired: true }),
      click({ at: NOW + 4 }),
    ].map(toRow);
    const [block] = packBlocks(rows);
    const clicks = unpackBlock(1, NOW, block?.data ?? '');
    expect(clicks.map((c) => [c.source, c.tapId, c.expired])).toEqual([
      ['qr', null, false],
      ['qr', 't1', false],
      ['qr', null, true],
      ['link', null, true],
      ['link', null, false],
    ]);
    // Blocks written before sources (and every non-QR click) have no thirteenth field: they read as link.
    expect(JSON.parse(block?.data ?? '[]')[3]).toHaveLength(12);
    expect(JSON.parse(block?.data ?? '[]')[4]).toEqual([4, 0, null, null, 'US', null, 'ios']);
  });

  it('a visit to an expired link keeps its flag through packing, after a tap id or without one', () => {
    const rows = [
      click({ at: NOW, expired: true }),
      click({ at: NOW + 1, expired: true, tapId: 't9' }),
      click({ at: NOW + 2 }),
    ].map(toRow);
    const [block] = packBlocks(rows);
    const clicks = unpackBlock(1, NOW, block?.data ?? '');
    expect(clicks.map((c) => [c.expired, c.tapId])).toEqual([
      [true, null],
      [true, 't9'],
      [false, null],
    ]);
    // A click without the flag packs exactly as before (trailing nulls left out).
    expect(JSON.parse(block?.data ?? '[]')[2]).toEqual([2, 0, null, null, 'US', null, 'ios']);
  });
  it("a hot link's batch is cut into blocks of at most MAX_BLOCK_CLICKS, in recording order", () => {
    const count = 2 * MAX_BLOCK_CLICKS + 345;
    const rows = Array.from({ length: count }, (_, i) =>
      click({ at: NOW + ((i * 7919) % 5000), bot: i % 10 === 0, tapId: `t${i}` }),
    ).map(toRow);
    rows.splice(3, 0, toRow(click({ linkId: 'link-2', at: NOW })));
    const blocks = packBlocks(rows);
    const hot = blocks.filter((block) => block.link_id === 'link-1');
    expect(hot.map((block) => JSON.parse(block.data).length)).toEqual([
      MAX_BLOCK_CLICKS,
      MAX_BLOCK_CLICKS,
      345,
    ]);
    expect(blocks.filter((block) => block.link_id === 'link-2')).toHaveLength(1);
    // Unpacked one after the other, the blocks give back every click in recording order, each block's
    // bounds and human count its own.
    const unpacked = hot.flatMap((block, b) => unpackBlock(b, block.first_at, block.data));
    expect(unpacked.map((c) => c.tapId)).toEqual(Array.from({ length: count }, (_, i) => `t${i}`));
    for (const [b, block] of hot.entries()) {
      const own = unpacked.filter((c) => c.block === b);
      expect(block.first_at).toBe(Math.min(...own.map((c) => c.at)));
      expect(block.last_at).toBe(Math.max(...own.map((c) => c.at)));
      expect(block.humans).toBe(own.filter((c) => !c.bot).length);
    }
  });

  /** The reference: JSON.stringify of every click's tuple, trailing nulls left out. */
  const reference = (rows: readonly ClickRow[], firstAt: number) =>
    JSON.stringify(
      rows.map((row) => {
        const tuple: unknown[] = [
          row.at - firstAt,
          row.bot,
          row.variant,
          row.routed,
          row.country,
          row.city,
          row.device,
          row.source_app,
          row.referrer_host,
          row.platform_key,
          row.tap_id,
        ];
        while (tuple[tuple.length - 1] === null) tuple.pop();
        return tuple;
      }),
    );

  it("writes each block as exactly JSON.stringify's text of its tuples, whatever the strings hold", () => {
    const odd = [
      '"q"',
      'back\\slash',
      'tab\there',
      '\u2028line',
      'lone \ud800 half',
      'Zürich 東京',
      '</script>',
    ];
    const once = odd.flatMap((value, i) => [
      click({
        at: NOW + i,
        routed: `https://e.x/${value}`,
        city: value,
        referrerHost: value,
        tapId: `t-${value}`,
      }),
      click({ at: NOW + i, country: null, device: 'android', platformKey: value, variant: i }),
      click({ at: NOW + i, bot: true, sourceApp: value }),
    ]);
    // The same clicks again later (their tails are reused), tap ids made unique again.
    const again = once.map((c, i) => ({ ...c, at: c.at + 5_000 + i, tapId: c.tapId && `${c.tapId}-2` }));
    const rows = [...once, ...again].map(toRow);
    const [block] = packBlocks(rows);
    expect(block?.data).toBe(reference(rows, NOW));
    expect(unpackBlock(1, NOW, block?.data ?? '').map((stored) => stored.city)).toEqual(
      rows.map((row) => row.city),
    );
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`raw click reads on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: Store;
    beforeAll(async () => {
      testStore = await kind.create();
      store = testStore.store;
    });
    afterAll(async () => testStore?.dispose());

    async function orgWithLink(slug: string) {
      const orgId = randomUUID();
      const linkId = randomUUID();
      await store.db
        .insertInto('organizations')
        .values({ id: orgId, name: 'o', tier: 'legend', created_at: 'x' })
        .execute();
      await store.db
        .insertInto('links')
        .values({
          id: linkId,
          org_id: orgId,
          host: '',
          slug,
          destination: 'https://e.x',
          platform_key: null,
          archived_at: null,
          created_at: 'x',
          updated_at: 'x',
        })
        .execute();
      return { orgId, linkId };
    }

    it('blocks overlapping in time read newest first and oldest first exactly, across pages', async () => {
      const { orgId, linkId } = await orgWithLink(`s${randomUUID().slice(0, 8)}`);
      const repo = createAnalyticsRepo(store);
      // Two "instances" interleave: even milliseconds in one batch, odd in the other, plus bots and an
      // old click outside the window; many batches so a read spans several queries of blocks.
      const times: number[] = [];
      for (let batch = 0; batch < 40; batch++) {
        const base = NOW - 100_000 + batch * 1000;
        const even = Array.from({ length: 5 }, (_, i) => base + 2 * i);
        const odd = Array.from({ length: 5 }, (_, i) => base + 2 * i + 1);
        await repo.writeClicks(
          [...odd, ...odd.map((at) => at + 1)].map((at, i) =>
            click({ orgId, linkId, at, bot: i >= odd.length, tapId: `tap-${at}` }),
          ),
        );
        await repo.writeClicks(even.map((at) => click({ orgId, linkId, at, tapId: `tap-${at}` })));
        times.push(...even, ...odd);
      }
      await repo.writeClicks([click({ orgId, linkId, at: NOW - 10 * 86_400_000 })]);
      const from = NOW - 200_000;
      const newest = [...times].sort((a, b) => b - a);
      const listed = [];
      for (let offset = 0; offset < times.length; offset += 37) {
        listed.push(...(await repo.clicks(linkId, from, 37, offset)));
      }
      expect(listed.map((row) => row.at)).toEqual(newest);
      expect(new Set(listed.map((row) => row.id)).size).toBe(times.length);
      expect(listed[0]?.tap_id).toBe(`tap-${newest[0]}`);
      expect(await repo.clicks(linkId, from, 10, times.length)).toEqual([]);

      const exported = [];
      for await (const page of repo.exportPages({ orgId }, from, 64)) exported.push(...page);
      expect(exported.map((row) => row.at)).toEqual([...newest].reverse());
      expect(exported.every((row) => row.link_id === linkId && row.slug.startsWith('s'))).toBe(true);
      // The same ids in both reads.
      expect(new Set(exported.map((row) => row.id))).toEqual(new Set(listed.map((row) => row.id)));
    });

    it("a hot link's batch reads back exactly, newest first and oldest first, from blocks of bounded size", async () => {
      const { orgId, linkId } = await orgWithLink(`h${randomUUID().slice(0, 8)}`);
      const repo = createAnalyticsRepo(store);
      // One batch far larger than a block, arriving a little out of order, with bots among it.
      const count = 2 * MAX_BLOCK_CLICKS + 500;
      const times = Array.from({ length: count }, (_, i) => NOW - 50_000 + ((i * 7919) % 40_000) + i);
      await repo.writeClicks(
        times.map((at, i) => click({ orgId, linkId, at, bot: i % 9 === 0, tapId: `hot-${i}` })),
      );
      const humans = times.filter((_, i) => i % 9 !== 0);
      const newest = [...humans].sort((a, b) => b - a);
      const blocks = await store.db
        .selectFrom('click_blocks')
        .select(['humans'])
        .where('link_id', '=', linkId)
        .execute();
      expect(blocks).toHaveLength(3);
      const listed = [];
      for (let offset = 0; offset < humans.length; offset += 200)
        listed.push(...(await repo.clicks(linkId, NOW - 100_000, 200, offset)));
      expect(listed.map((row) => row.at)).toEqual(newest);
      expect(new Set(listed.map((row) => row.id)).size).toBe(humans.length);
      const exported = [];
      for await (const page of repo.exportPages({ orgId }, NOW - 100_000, 700)) exported.push(...page);
      expect(exported.map((row) => row.at)).toEqual([...newest].reverse());
    });

    it('outcomes join by tap id in both reads', async () => {
      const { orgId, linkId } = await orgWithLink(`o${randomUUID().slice(0, 8)}`);
      const repo = createAnalyticsRepo(store);
      await repo.writeClicks([
        click({ orgId, linkId, at: NOW, tapId: `a-${orgId.slice(0, 8)}` }),
        click({ orgId, linkId, at: NOW + 1, tapId: `b-${orgId.slice(0, 8)}` }),
        click({ orgId, linkId, at: NOW + 2 }),
      ]);
      await repo.insertOutcome({
        tapId: `a-${orgId.slice(0, 8)}`,
        orgId,
        linkId,
        day: Math.floor(NOW / 86_400_000),
        outcome: 'opened',
        variant: null,
        platformKey: null,
        at: NOW + 5,
      });
      const listed = await repo.clicks(linkId, 0, 10, 0);
      expect(listed.map((row) => row.outcome)).toEqual([null, null, 'opened']);
      const exported = [];
      for await (const page of repo.exportPages({ orgId, linkId }, 0)) exported.push(...page);
      expect(exported.map((row) => [row.tap_id, row.outcome])).toEqual([
        [`a-${orgId.slice(0, 8)}`, 'opened'],
        [`b-${orgId.slice(0, 8)}`, null],
        [null, null],
      ]);
    });

    it('the migration moves old click rows into blocks (down, old rows, up)', async () => {
      const own = await kind.create();
      try {
        const db = own.store.db;
        const migrator = new Migrator({
          db,
          provider: migrationProvider,
          ...(own.schema ? { migrationTableSchema: own.schema } : {}),
        });
        // Back to before 012 (later migrations, such as 013-click-batches, go down first).
        const down = await despiteSchemaDrops(() => migrator.migrateTo('011-audience'));
        expect(down.results?.map((result) => result.migrationName)).toContain('012-click-blocks');
        const old = Array.from({ length: 2503 }, (_, i) => ({
          id: `${String(i).padStart(8, '0')}-0000-7000-8000-000000000000`,
          org_id: 'org-m',
          link_id: i % 3 === 0 ? 'link-a' : 'link-b',
          at: NOW + i,
          bot: i % 10 === 0 ? 1 : 0,
          variant: null,
          routed: null,
          country: 'DE',
          city: null,
          device: 'android',
          source_app: null,
          referrer_host: null,
          platform_key: null,
          tap_id: i === 5 ? 'tap-5' : null,
        }));
        const oldDb = db as unknown as import('kysely').Kysely<{ clicks: (typeof old)[number] }>;
        for (let i = 0; i < old.length; i += 500)
          await oldDb
            .insertInto('clicks')
            .values(old.slice(i, i + 500))
            .execute();
        expect((await despiteSchemaDrops(() => migrateToLatest(own.store))).applied).toContain(
          '012-click-blocks',
        );
        const moved = await storedClicks(own.store, 'org-m');
        expect(moved.map((c) => `${c.linkId} ${c.at} ${c.bot}`).sort()).toEqual(
          old.map((c) => `${c.link_id} ${c.at} ${c.bot === 1}`).sort(),
        );
        expect(moved.find((c) => c.at === NOW + 5)?.tapId).toBe('tap-5');
        const humansOfB = old.filter((c) => c.link_id === 'link-b' && c.bot === 0).length;
        expect(await createAnalyticsRepo(own.store).clicks('link-b', 0, 5000, 0)).toHaveLength(humansOfB);
      } finally {
        await own.dispose();
      }
    });
  });
}

// SQLite's batch runs synchronously on the raw connection, beside Kysely's own transactions.
describe('click batch on sqlite', () => {
  it('a batch waits for a transaction open on the connection instead of joining it', async () => {
    const testStore = await sqliteKind.create();
    const store = testStore.store;
    try {
      const orgId = randomUUID();
      const repo = createAnalyticsRepo(store);
      let release = () => {};
      const open = store.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('organizations')
          .values({ id: orgId, name: 'x', tier: 'hero', created_at: 'x' })
          .execute();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        throw new Error('rolled back');
      });
      await new Promise((resolve) => setImmediate(resolve));
      let written = false;
      const write = repo.writeClicks([click({ orgId })]).then(() => {
        written = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(written).toBe(false);
      release();
      await expect(open).rejects.toThrow('rolled back');
      await write;
      // The other transaction's rollback took nothing of the batch with it.
      expect(await storedClicks(store, orgId)).toHaveLength(1);
    } finally {
      await testStore.dispose();
    }
  });

  it("leaves each connection's sync level as it found it, batch after batch", async () => {
    const [first, second] = [await sqliteKind.create(), await sqliteKind.create()];
    try {
      const orgId = randomUUID();
      const sync = (store: Store) => store.sqlite?.pragma('synchronous', { simple: true });
      // The second connection runs at another level, so a statement prepared for the first and reused on
      // the second (or a level remembered from the first) would show.
      second.store.sqlite?.pragma('synchronous = OFF');
      const seen: number[] = [];
      for (const { store } of [first, second, first, second]) {
        await createAnalyticsRepo(store).writeClicks([click({ orgId }), click({ orgId, at: NOW + 1 })]);
        seen.push(Number(sync(store)));
      }
      expect(seen).toEqual([2, 0, 2, 0]);
      expect(await storedClicks(first.store, orgId)).toHaveLength(4);
      expect(await storedClicks(second.store, orgId)).toHaveLength(4);
    } finally {
      await first.dispose();
      await second.dispose();
    }
  });
});
