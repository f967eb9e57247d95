import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClickhouseAnalytics } from '../../../src/analytics/clickhouse/store.js';
import type { AnalyticsStore } from '../../../src/analytics/repo.js';
import type { Link } from '../../../src/links/schema.js';
import type { OrgContext } from '../../../src/tenancy/context.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { sqliteKind, type TestStore } from '../../helpers/stores.js';
import { analyticsStore, clickInput, DAY, makeHarness, makeOrg, NOW, TODAY } from '../setup.js';

/**
 * A ClickHouse database made before the group rollups: its clicks carry no stamp. Opening it with this
 * release adds the `groups` columns, marks the group rollups complete from tomorrow, and reads of a
 * folder whose window starts before that sum the folder's links instead, so the answer is whole.
 */

const WINDOW = { from: Math.floor(NOW / DAY) - 29, to: Math.floor(NOW / DAY) };

describe.skipIf(clickhouseKind.skipReason !== null)('a ClickHouse database made before group rollups', () => {
  let ch: TestClickhouse;
  let main: TestStore;
  let org: OrgContext;
  const links: Link[] = [];
  let folderId = '';
  const closers: (() => Promise<void>)[] = [];
  const database = `t_up_${crypto.randomUUID().slice(0, 8)}`;

  async function open(): Promise<AnalyticsStore> {
    const opened = await openClickhouseAnalytics(ch.urlFor(database), main.store);
    closers.push(() => opened.close());
    return opened.store;
  }

  async function clicks(repo: AnalyticsStore, n: number, daysAgo: number) {
    const h = makeHarness(main.store, { repo });
    for (let i = 0; i < n; i++)
      for (const link of links)
        h.buffer.record(
          clickInput({ orgId: org.orgId, linkId: link.id, at: TODAY - daysAgo * DAY + i * 60_000 }),
        );
    await h.buffer.flush();
  }

  beforeAll(async () => {
    ch = await startClickhouse();
    main = await analyticsStore(sqliteKind);
    org = await makeOrg(main.store, 'legend');
    folderId = crypto.randomUUID();
    await main.store.db
      .insertInto('folders')
      .values({ id: folderId, org_id: org.orgId, name: 'f', created_at: new Date(NOW).toISOString() })
      .execute();
    const h = makeHarness(main.store);
    for (const i of [0, 1, 2])
      links.push(
        await h.links.create(org, {
          url: `https://example.com/${i}`,
          slug: `u${i}`,
          folderId: i < 2 ? folderId : null,
        }),
      );
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await main?.dispose();
    await ch?.stop();
  });

  it('a fresh database has no mark and reads its folder from the group rollups', async () => {
    const repo = await open();
    await clicks(repo, 3, 5);
    expect((await ch.query(`SELECT count() FROM ${database}.group_marks`)).trim()).toBe('0');
    expect(
      Number(
        (
          await ch.query(`SELECT sum(clicks) FROM ${database}.group_rollups WHERE dimension = 'total'`)
        ).trim(),
      ),
    ).toBe(6);
    expect(await repo.sums({ orgId: org.orgId, folderId }, ['total'], WINDOW)).toEqual([
      { dimension: 'total', value: '', clicks: 6 },
    ]);
  });

  it('made before (no stamps, no group tables): upgraded at open, its folder still reads every click', async () => {
    // Back to the earlier release's schema, keeping its clicks and per-link rollups.
    for (const view of [
      'group_rollups_mv',
      'group_outcome_rollups_mv',
      'group_outcome_corrections_mv',
      'outcome_writes_mv',
    ])
      await ch.query(`DROP TABLE ${database}.${view}`);
    await ch.query(`DROP TABLE ${database}.link_days_mv`);
    for (const table of ['group_rollups', 'group_outcome_rollups', 'group_marks', 'link_days'])
      await ch.query(`DROP TABLE ${database}.${table}`);
    for (const table of ['clicks', 'outcomes', 'outcome_writes', 'outcome_corrections'])
      await ch.query(`ALTER TABLE ${database}.${table} DROP COLUMN groups`);

    const repo = await open();
    const stamped = await ch.query(
      `SELECT count() FROM system.columns WHERE database = '${database}' AND name = 'groups'
        AND table IN ('clicks', 'outcomes', 'outcome_writes', 'outcome_corrections')`,
    );
    expect(stamped.trim()).toBe('4');
    const tomorrow = new Date((Math.floor(Date.now() / DAY) + 1) * DAY).toISOString().slice(0, 10);
    expect((await ch.query(`SELECT toString(max(day)) FROM ${database}.group_marks`)).trim()).toBe(tomorrow);
    // The six clicks of before are not in the (new, empty) group rollups, yet the folder reads them.
    await clicks(repo, 2, 1);
    expect(await repo.sums({ orgId: org.orgId, folderId }, ['total'], WINDOW)).toEqual([
      { dimension: 'total', value: '', clicks: 10 },
    ]);
    const daily = await repo.daily({ orgId: org.orgId, folderId }, WINDOW);
    expect([...daily.values()].reduce((a, b) => a + b, 0)).toBe(10);
    // The per-link list of the folder too, from the per-link rollups (link_days holds the new clicks only).
    const listed = await repo.linkTotals({ orgId: org.orgId, folderId }, WINDOW);
    expect(listed.map((row) => row.clicks).sort()).toEqual([5, 5]);
    expect(Number((await ch.query(`SELECT sum(clicks) FROM ${database}.link_days`)).trim())).toBe(6);
    // The new clicks were stamped: the group rollups hold them (and only them).
    expect(
      Number(
        (
          await ch.query(`SELECT sum(clicks) FROM ${database}.group_rollups WHERE dimension = 'total'`)
        ).trim(),
      ),
    ).toBe(4);
    // Opening again marks nothing more.
    await open();
    expect((await ch.query(`SELECT count() FROM ${database}.group_marks`)).trim()).toBe('1');
  });
});
