import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfill } from '../../../src/analytics/clickhouse/backfill.js';
import { createBackfillSource } from '../../../src/analytics/clickhouse/backfill-source.js';
import type { ClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { createGroupHistory } from '../../../src/analytics/clickhouse/group-history.js';
import { createOutcomeCorrection } from '../../../src/analytics/clickhouse/outcome-correction.js';
import { outcomeRow } from '../../../src/analytics/clickhouse/rows.js';
import { applySchema, tablesOf } from '../../../src/analytics/clickhouse/schema.js';
import { createClickhouseAnalyticsStore } from '../../../src/analytics/clickhouse/store.js';
import type { OutcomeRow } from '../../../src/analytics/model.js';
import { type AnalyticsRepo, createAnalyticsRepo } from '../../../src/analytics/repo.js';
import type { OrgContext } from '../../../src/tenancy/context.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { sqliteKind, type TestStore } from '../../helpers/stores.js';
import { analyticsStore, clickInput, DAY, makeLinks, makeOrg, NOW } from '../setup.js';
import { openTestAnalytics } from './setup.js';

type Link = Awaited<ReturnType<ReturnType<typeof makeLinks>['create']>>;

/**
 * The outcome rollups (schema.ts) against the SQL store's first-outcome answer: a race the write path
 * cannot see (two first reports of one tap inserted at once) taken back by the correction
 * (outcome-correction.ts), exactly and once; a database made before the rollups filled from its
 * outcomes at start; the backfill's outcomes copied once across a crash and a rerun.
 */

const today = Math.floor(NOW / DAY);
const WINDOW = { from: today - 60, to: today + 1 };
const DIMENSIONS = ['outcome', 'platform_outcome', 'variant_outcome', 'cell_outcome'];
const sorted = <T extends { dimension: string; value: string }>(rows: readonly T[]) =>
  [...rows].sort((a, b) => `${a.dimension}\n${a.value}`.localeCompare(`${b.dimension}\n${b.value}`));

describe.skipIf(clickhouseKind.skipReason !== null)('ClickHouse outcome rollups', () => {
  let ch: TestClickhouse;
  let main: TestStore;
  let org: OrgContext;
  let link: Link;
  let other: Link;
  let sqlRepo: AnalyticsRepo;
  const opened: { close(): Promise<void> }[] = [];

  const outcome = (tapId: string, over: Partial<OutcomeRow> = {}): OutcomeRow => ({
    tapId,
    orgId: org.orgId,
    linkId: link.id,
    day: today - 1,
    outcome: 'opened',
    variant: 1,
    platformKey: 'youtube',
    sourceApp: 'instagram',
    device: 'ios',
    strategy: 'universal',
    at: NOW + 1000,
    ...over,
  });

  /** Every read an outcome dimension goes through, on one store. */
  async function answers(repo: AnalyticsRepo) {
    return {
      org: sorted(await repo.sums({ orgId: org.orgId }, DIMENSIONS, WINDOW)),
      link: sorted(await repo.sums({ orgId: org.orgId, linkId: link.id }, DIMENSIONS, WINDOW)),
      links: [...(await repo.linkSums(org.orgId, [link.id, other.id], DIMENSIONS, WINDOW))].sort((a, b) =>
        `${a.linkId}${a.dimension}${a.value}`.localeCompare(`${b.linkId}${b.dimension}${b.value}`),
      ),
      bandit: sorted(await repo.sums({ orgId: '*' }, ['cell_outcome'], WINDOW)),
    };
  }

  beforeAll(async () => {
    ch = await startClickhouse();
    main = await analyticsStore(sqliteKind);
    sqlRepo = createAnalyticsRepo(main.store);
    org = await makeOrg(main.store);
    const links = makeLinks(main.store);
    link = await links.create(org, { url: 'https://example.com/a', slug: 'race-a' });
    other = await links.create(org, { url: 'https://example.com/b', slug: 'race-b' });
  }, 60_000);
  afterAll(async () => {
    for (const item of opened) await item.close();
    await main?.dispose();
    await ch?.stop();
  });

  it('a second first report inserted at once is taken back by the correction, once', async () => {
    const ck = await openTestAnalytics(ch, main.store);
    opened.push(ck);
    const chRepo = ck.store as AnalyticsRepo;
    const t = tablesOf(ck.database);
    const both = async (row: OutcomeRow) => {
      expect(await chRepo.insertOutcome(row)).toBe(await sqlRepo.insertOutcome(row));
    };
    await both(outcome('r-plain'));
    await both(outcome('r-other', { linkId: other.id, outcome: 'browser', variant: null, at: NOW + 50 }));
    // The race: the first report went through both stores; a later, different one slipped into
    // ClickHouse at the same moment (the SQL store's primary key refuses it), and the same late report
    // twice more, plus a repeat of the winner itself.
    const first = outcome('r-race', { at: NOW + 2000, outcome: 'opened' });
    const late = outcome('r-race', {
      at: NOW + 2500,
      outcome: 'broken',
      platformKey: 'spotify',
      variant: 0,
      strategy: 'scheme',
    });
    await both(first);
    expect(await sqlRepo.insertOutcome(late)).toBe(false);
    await ck.client.insert(t.outcomes.text, [outcomeRow(late), outcomeRow(late), outcomeRow(first)]);

    const expected = await answers(sqlRepo);
    expect(expected.org).toContainEqual({ dimension: 'outcome', value: 'opened', clicks: 2 });
    expect(expected.bandit.length).toBeGreaterThan(0);
    // Before the correction, the rollups count every row inserted.
    const before = await answers(chRepo);
    expect(before.org).toContainEqual({ dimension: 'outcome', value: 'broken', clicks: 2 });
    expect(before.org).toContainEqual({ dimension: 'outcome', value: 'opened', clicks: 3 });

    const correction = createOutcomeCorrection(ck.client, t);
    expect(await correction.correctOutcomes()).toMatchObject({ taps: 1, rows: 2 });
    expect(await answers(chRepo)).toEqual(expected);
    // Idempotent: nothing to add, and the answers stay.
    expect(await correction.correctOutcomes()).toMatchObject({ taps: 0, rows: 0 });
    expect(await answers(chRepo)).toEqual(expected);
    // Two passes at the same moment both add the same difference: the next pass adds it back.
    const [row] = await ck.client.rows<object>(
      `SELECT * FROM ${t.outcomeCorrections.text} WHERE outcome = 'broken' LIMIT 1`,
    );
    await ck.client.insert(t.outcomeCorrections.text, [row as object]);
    expect((await answers(chRepo)).org).not.toEqual(expected.org);
    expect(await correction.correctOutcomes()).toMatchObject({ taps: 1, rows: 1 });
    expect(await answers(chRepo)).toEqual(expected);
    // The clicks list's outcome reads the same first row.
    const [first_] = await ck.client.rows<{ o: string }>(
      `SELECT argMin(outcome, (at, outcome, platform_key, cell)) AS o FROM ${t.outcomes.text}
        WHERE tap_id = 'r-race'`,
    );
    expect(first_?.o).toBe('opened');
  });

  it('keeps the ledger for today and two days, and drops older days only after correcting them', async () => {
    const ck = await openTestAnalytics(ch, main.store);
    opened.push(ck);
    const t = tablesOf(ck.database);
    // A race written five days ago (server days), never corrected: still found, then its day dropped.
    const [{ old } = { old: '' }] = await ck.client.rows<{ old: string }>(
      'SELECT toString(today() - 5) AS old',
    );
    const stale = { ...outcomeRow(outcome('r-stale')), written: old };
    const { precedence: _p, ...ledger } = stale;
    await ck.client.insert(t.outcomes.text, [outcomeRow(outcome('r-stale'))]);
    // The view wrote today's ledger row; the second, as a pass long ago would have found it, by hand.
    await ck.client.insert(t.outcomeWrites.text, [
      { ...ledger, outcome: 'broken', at: NOW + 3000 },
      { ...ledger, outcome: 'broken', at: NOW + 3000 },
    ]);
    await ck.client.insert(`${t.outcomeRollups.text}`, [
      {
        org_id: org.orgId,
        link_id: link.id,
        day: stale.day,
        dimension: 'outcome',
        value: 'broken',
        taps: 2,
      },
    ]);
    const correction = createOutcomeCorrection(ck.client, t);
    const report = await correction.correctOutcomes();
    expect(report).toMatchObject({ taps: 1, rows: 1, dropped: [old] });
    const sums = await (ck.store as AnalyticsRepo).sums(
      { orgId: org.orgId, linkId: link.id },
      ['outcome'],
      WINDOW,
    );
    expect(sums).toEqual([{ dimension: 'outcome', value: 'opened', clicks: 1 }]);
    expect(await ck.count(`SELECT count() AS n FROM ${t.outcomeWrites.text}`)).toBe(1);
  });

  it('a database made before the outcome rollups: filled once from its outcomes at start', async () => {
    const ck = await openTestAnalytics(ch, main.store);
    opened.push(ck);
    const t = tablesOf(ck.database);
    // As an older schema left it: outcomes, and none of the rollups' tables or views.
    for (const view of [
      'outcome_rollups_mv',
      'org_outcome_rollups_mv',
      'outcome_corrections_mv',
      'org_outcome_corrections_mv',
      'outcome_writes_mv',
    ])
      await ck.client.command(`DROP TABLE ${ck.database}.${view}`);
    for (const table of [t.outcomeRollups, t.orgOutcomeRollups, t.outcomeWrites, t.outcomeCorrections])
      await ck.client.command(`DROP TABLE ${table.text}`);
    const first = outcome('f-race', { at: NOW + 10 });
    await ck.client.insert(t.outcomes.text, [
      outcomeRow(outcome('f-one')),
      outcomeRow(outcome('f-two', { linkId: other.id, outcome: 'broken', at: NOW + 5 })),
      outcomeRow({ ...first, outcome: 'browser', at: NOW + 20, platformKey: 'spotify' }),
      outcomeRow(first),
    ]);
    await applySchema(ck.client, t);
    await applySchema(ck.client, t);
    const expected = [
      { dimension: 'outcome', value: 'broken', clicks: 1 },
      { dimension: 'outcome', value: 'opened', clicks: 2 },
      { dimension: 'platform_outcome', value: 'youtube|broken', clicks: 1 },
      { dimension: 'platform_outcome', value: 'youtube|opened', clicks: 2 },
    ];
    const chRepo = ck.store as AnalyticsRepo;
    expect(sorted(await chRepo.sums({ orgId: org.orgId }, ['outcome', 'platform_outcome'], WINDOW))).toEqual(
      expected,
    );
    const perLink = await chRepo.linkSums(org.orgId, [link.id, other.id], ['outcome'], WINDOW);
    expect(perLink.reduce((n, row) => n + row.clicks, 0)).toBe(3);
  });

  it("the backfill copies each tap's outcome once, across a crash after an insert and a rerun", async () => {
    const ck = await openTestAnalytics(ch, main.store);
    opened.push(ck);
    const t = tablesOf(ck.database);
    // Two months of outcomes in the SQL store (the earlier tests' rows are there too).
    for (let i = 0; i < 6; i += 1)
      await sqlRepo.insertOutcome(
        outcome(`b-${i}`, { day: today - 40 + i * 7, at: NOW - (40 - i * 7) * DAY, outcome: 'browser' }),
      );
    let crashed = false;
    const crashing: ClickhouseClient = {
      ...ck.client,
      async insert(table, rows, settings) {
        await ck.client.insert(table, rows, settings);
        if (table === t.outcomes.text && !crashed) {
          crashed = true;
          throw new Error('socket hang up (answer lost)');
        }
      },
    };
    const options = {
      source: createBackfillSource(main.store),
      groups: createGroupHistory(main.store),
      tables: t,
      log: () => {},
    };
    await expect(
      backfill({
        ...options,
        client: crashing,
        store: createClickhouseAnalyticsStore({ client: crashing, database: ck.database, main: main.store }),
      }),
    ).rejects.toThrow(/answer lost/);
    const report = await backfill({ ...options, client: ck.client, store: ck.store });
    expect(report.complete).toBe(true);
    const chRepo = ck.store as AnalyticsRepo;
    // Cells too: the SQL store's outcome rows do not keep a tap's cell, its cell_outcome rollups are copied.
    const copied = DIMENSIONS;
    const expected = sorted(await sqlRepo.sums({ orgId: org.orgId }, copied, WINDOW));
    expect(expected).toContainEqual({ dimension: 'outcome', value: 'browser', clicks: 7 });
    expect(sorted(await chRepo.sums({ orgId: org.orgId }, copied, WINDOW))).toEqual(expected);
    // And a whole second run over the same months copies nothing more.
    await ck.client.command(`DROP TABLE ${ck.database}.backfill_checkpoint`);
    expect((await backfill({ ...options, client: ck.client, store: ck.store })).outcomes).toBe(0);
    expect(sorted(await chRepo.sums({ orgId: org.orgId }, copied, WINDOW))).toEqual(expected);
  });

  it('the clicks list starts from the days its page needs, and reads the whole window when they fall short', async () => {
    const ck = await openTestAnalytics(ch, main.store);
    opened.push(ck);
    const t = tablesOf(ck.database);
    const at = (daysAgo: number, n: number) => NOW - daysAgo * DAY + n * 60_000;
    const clicks = [at(0, 1), at(0, 2), at(0, 3), at(20, 1), at(20, 2)].map((when) =>
      clickInput({ orgId: org.orgId, linkId: link.id, at: when }),
    );
    await ck.store.writeClicks(clicks, 'b-page');
    const list = async (limit: number, offset: number) =>
      (await ck.store.clicks(link.id, NOW - 60 * DAY, limit, offset)).map((click) => click.at);
    expect(await list(2, 0)).toEqual([at(0, 3), at(0, 2)]);
    expect(await list(2, 2)).toEqual([at(0, 1), at(20, 2)]);
    // Yesterday's rollups count five clicks the raw table does not have (a backfilled day past
    // retention): the days say the page starts yesterday, the raw rows from there come back short.
    await ck.client.insert(t.linkRollups.text, [
      {
        org_id: org.orgId,
        link_id: link.id,
        day: new Date((today - 1) * DAY).toISOString().slice(0, 10),
        dimension: 'total',
        value: '',
        clicks: 5,
      },
    ]);
    expect(await list(4, 0)).toEqual([at(0, 3), at(0, 2), at(0, 1), at(20, 2)]);
    expect(await list(10, 0)).toHaveLength(5);
  });
});
