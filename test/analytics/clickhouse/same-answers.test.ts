import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsRepo, createAnalyticsRepo } from '../../../src/analytics/repo.js';
import { type AnalyticsService, createAnalyticsService } from '../../../src/analytics/service.js';
import { createClickBuffer } from '../../../src/analytics/write/click-buffer.js';
import { createTapTokens } from '../../../src/analytics/write/tap-tokens.js';
import type { OrgContext } from '../../../src/tenancy/context.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { sqliteKind, type TestStore } from '../../helpers/stores.js';
import { type Dataset, reportOutcomes, seed } from '../dataset.js';
import {
  analyticsStore,
  ctxOf,
  DAY,
  type Harness,
  makeLinks,
  makeOrg,
  NOW,
  SECRET,
  silent,
  TODAY,
} from '../setup.js';
import { extraClicks, extraOutcomes } from './extra-dataset.js';
import { ALL_DIMENSIONS, openTestAnalytics } from './setup.js';

/**
 * The "same shapes" acceptance: the analytics data set of the store suites (dataset.ts, answers worked out
 * by hand and checked in reads.test.ts on SQLite and PostgreSQL), plus taps with escape cells, QR scans,
 * expired-link visits and older months, written through both stores at once; then every read, of the
 * store and of the analytics service over it, must answer on ClickHouse exactly what it answers on
 * SQLite (click ids aside: `<batch>-<seq>` there, `<block>-<index>` here). Folders and tags resolve in
 * the SQLite database, as they would in PostgreSQL.
 */

const today = Math.floor(NOW / DAY);
/** Today alone, whole weeks and ragged edges (the SQL store splits windows into 7-day blocks), all time. */
const WINDOWS = [
  { from: today, to: today },
  { from: today - 6, to: today },
  { from: today - 89, to: today },
  { from: today - 45, to: today - 3 },
  { from: today - 400, to: today + 2 },
];
const byKey = <T>(rows: readonly T[], key: (row: T) => string) =>
  [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
const withoutId = <T extends { id: string }>(rows: readonly T[]) => rows.map(({ id: _id, ...rest }) => rest);

describe.skipIf(clickhouseKind.skipReason !== null)('ClickHouse answers what the SQL store answers', () => {
  let ch: TestClickhouse;
  let main: TestStore;
  let ck: Awaited<ReturnType<typeof openTestAnalytics>>;
  let sqlRepo: AnalyticsRepo;
  let chRepo: AnalyticsRepo;
  let d: Dataset;
  let org: OrgContext;
  let onSql: AnalyticsService;
  let onCh: AnalyticsService;
  /** Each outcome's answer from both stores, [sql, clickhouse]. */
  const outcomeAnswers: [boolean, boolean][] = [];

  beforeAll(async () => {
    ch = await startClickhouse();
    main = await analyticsStore(sqliteKind);
    ck = await openTestAnalytics(ch, main.store);
    sqlRepo = createAnalyticsRepo(main.store);
    chRepo = ck.store as AnalyticsRepo;
    const store = main.store;
    const links = makeLinks(store);
    const tapTokens = createTapTokens({ secret: SECRET, now: () => NOW });
    // Writes go to both stores; the SQL store's answer is the one the write path sees.
    const both: AnalyticsRepo = {
      ...sqlRepo,
      async writeClicks(clicks, batchId) {
        const answer = await sqlRepo.writeClicks(clicks, batchId);
        await chRepo.writeClicks(clicks, batchId);
        return answer;
      },
      async insertOutcome(o, within) {
        const answer = await sqlRepo.insertOutcome(o, within);
        outcomeAnswers.push([answer, await chRepo.insertOutcome(o)]);
        return answer;
      },
    };
    const service = (repo: AnalyticsRepo) =>
      createAnalyticsService({
        store,
        analytics: true,
        links,
        tapTokens,
        emitEvent: async () => {},
        now: () => new Date(NOW),
        repo,
      });
    const h: Harness = {
      store,
      links,
      tapTokens,
      analytics: service(both),
      emitted: [],
      buffer: createClickBuffer({ store, logger: silent, write: both.writeClicks }),
    };
    org = await makeOrg(store);
    const other = await makeOrg(store);
    d = await seed(h, { org, other });
    expect(await reportOutcomes(h, d)).toEqual([true, true, true, true, false]);
    for (const click of extraClicks(d)) h.buffer.record(click);
    await h.buffer.flush();
    for (const report of extraOutcomes(d, tapTokens))
      await h.analytics.recordOutcome(report.token, report.outcome);
    onSql = service(sqlRepo);
    onCh = service(chRepo);
  });
  afterAll(async () => {
    await ck?.close();
    await main?.dispose();
    await ch?.stop();
  });

  const scopes = () => [
    { orgId: org.orgId },
    { orgId: org.orgId, linkId: d.alpha.id },
    { orgId: org.orgId, linkId: d.beta.id },
    { orgId: org.orgId, linkId: d.foreign.id },
    { orgId: org.orgId, folderId: d.folderId },
    { orgId: org.orgId, tag: 'promo' },
    { orgId: org.orgId, tag: 'nothing' },
    { orgId: org.orgId, folderId: d.folderId, tag: 'promo' },
    { orgId: org.orgId, linkId: d.alpha.id, tag: 'promo' },
    { orgId: d.other.orgId },
    { orgId: '*' },
  ];

  it('every outcome got the same answer from both stores (first counts, a replay does not)', () => {
    expect(outcomeAnswers.length).toBeGreaterThan(5);
    for (const [onSqlStore, onClickhouse] of outcomeAnswers) expect(onClickhouse).toBe(onSqlStore);
  });

  it('sums: every dimension, every scope, every window', async () => {
    let nonEmpty = 0;
    for (const scope of scopes())
      for (const window of WINDOWS) {
        const key = (row: { dimension: string; value: string }) => `${row.dimension}\n${row.value}`;
        const expected = byKey(await sqlRepo.sums(scope, ALL_DIMENSIONS, window), key);
        if (expected.length > 0) nonEmpty += 1;
        expect(
          byKey(await chRepo.sums(scope, ALL_DIMENSIONS, window), key),
          JSON.stringify({ scope, window }),
        ).toEqual(expected);
      }
    expect(nonEmpty).toBeGreaterThan(30);
  });

  it('daily, linkTotals and perLink: every scope, every window', async () => {
    for (const scope of scopes())
      for (const window of WINDOWS) {
        const at = JSON.stringify({ scope, window });
        const days = async (repo: AnalyticsRepo) =>
          [...(await repo.daily(scope, window))].sort((a, b) => a[0] - b[0]);
        expect(await days(chRepo), at).toEqual(await days(sqlRepo));
        const totals = async (repo: AnalyticsRepo) =>
          byKey(await repo.linkTotals(scope, window), (row) => row.id);
        expect(await totals(chRepo), at).toEqual(await totals(sqlRepo));
        for (const limit of [2, 200])
          expect(await chRepo.perLink(scope, window, limit), at).toEqual(
            await sqlRepo.perLink(scope, window, limit),
          );
      }
  });

  it('linkSums: per link, another organization reads zeros', async () => {
    const ids = [d.alpha.id, d.beta.id, d.gamma.id, d.foreign.id, d.alpha.id];
    const key = (row: { linkId: string; dimension: string; value: string }) =>
      `${row.linkId}\n${row.dimension}\n${row.value}`;
    for (const orgId of [org.orgId, d.other.orgId])
      for (const window of WINDOWS)
        expect(byKey(await chRepo.linkSums(orgId, ids, ALL_DIMENSIONS, window), key)).toEqual(
          byKey(await sqlRepo.linkSums(orgId, ids, ALL_DIMENSIONS, window), key),
        );
  });

  it('a list of 8,000 link ids (an IN list past 256 KiB, the default query size) reads in one query', async () => {
    const ids = [d.alpha.id, ...Array.from({ length: 8000 }, () => crypto.randomUUID()), d.beta.id];
    const window = WINDOWS[2] as (typeof WINDOWS)[number];
    const key = (row: { linkId: string; dimension: string; value: string }) =>
      `${row.linkId}\n${row.dimension}\n${row.value}`;
    expect(byKey(await chRepo.linkSums(org.orgId, ids, ['total', 'outcome'], window), key)).toEqual(
      byKey(await sqlRepo.linkSums(org.orgId, ids, ['total', 'outcome'], window), key),
    );
  });

  it('clicks: newest first, paged, with outcomes, expired and QR visits', async () => {
    for (const link of [d.alpha, d.beta, d.gamma, d.foreign])
      for (const from of [0, TODAY - 30 * DAY, TODAY])
        for (const [limit, offset] of [
          [1000, 0],
          [2, 1],
          [1, 3],
          [5, 50],
        ] as const) {
          const expected = await sqlRepo.clicks(link.id, from, limit, offset);
          expect(withoutId(await chRepo.clicks(link.id, from, limit, offset))).toEqual(withoutId(expected));
        }
    expect((await chRepo.clicks(d.alpha.id, 0, 1000, 0)).length).toBeGreaterThan(5);
  });

  it('export: oldest first, every scope, pages of any size', async () => {
    const all = async (
      repo: AnalyticsRepo,
      scope: Parameters<AnalyticsRepo['exportPages']>[0],
      size: number,
    ) => {
      const rows = [];
      for await (const page of repo.exportPages(scope, TODAY - 120 * DAY, size)) {
        expect(page.length).toBeLessThanOrEqual(size);
        rows.push(...page);
      }
      return withoutId(rows);
    };
    for (const scope of scopes().filter((s) => s.orgId !== '*'))
      for (const size of [2, 5000])
        expect(await all(chRepo, scope, size)).toEqual(await all(sqlRepo, scope, size));
    expect((await all(chRepo, { orgId: org.orgId }, 5000)).length).toBeGreaterThan(10);
  });

  it('the analytics service answers the same on both, on every plan', async () => {
    const queries = [
      {},
      { days: 1 },
      { days: 7 },
      { days: 90 },
      { linkId: d.alpha.id },
      { folderId: d.folderId },
      { tag: 'promo' },
      { tag: 'promo', folderId: d.folderId, days: 45 },
    ];
    for (const tier of ['sidekick', 'hero', 'legend'] as const) {
      const ctx = ctxOf(org.orgId, tier);
      for (const query of queries)
        expect(await onCh.analytics(ctx, query), JSON.stringify({ tier, query })).toEqual(
          await onSql.analytics(ctx, query),
        );
      for (const link of [d.alpha, d.beta, d.gamma]) {
        expect(await onCh.linkStats(ctx, link.id)).toEqual(await onSql.linkStats(ctx, link.id));
        expect(await onCh.abStats(ctx, link.id)).toEqual(await onSql.abStats(ctx, link.id));
        const listed = async (service: AnalyticsService) => {
          const body = await service.clicks(ctx, link.id, { limit: 3, offset: 1 });
          return { ...body, clicks: withoutId(body.clicks) };
        };
        expect(await listed(onCh)).toEqual(await listed(onSql));
      }
      for (const query of [{}, { days: 90 }, { linkId: d.beta.id }, { tag: 'promo' }])
        expect(await onCh.escapeCells(ctx, query)).toEqual(await onSql.escapeCells(ctx, query));
    }
    const ids = [d.alpha.id, d.gamma.id, d.beta.id, d.alpha.id];
    expect(await onCh.blockStats(org.orgId, ids)).toEqual(await onSql.blockStats(org.orgId, ids));
    const bandit = async (service: AnalyticsService) => [...(await service.allOrgCellOutcomes(30))].sort();
    expect(await bandit(onCh)).toEqual(await bandit(onSql));
    expect((await bandit(onCh)).length).toBeGreaterThan(0);
    expect((await onCh.escapeCells(ctxOf(org.orgId, 'legend'), { days: 90 })).cells.length).toBeGreaterThan(
      1,
    );
  });
});
