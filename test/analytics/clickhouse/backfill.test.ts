import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfill } from '../../../src/analytics/clickhouse/backfill.js';
import { createBackfillSource } from '../../../src/analytics/clickhouse/backfill-source.js';
import { createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { createGroupHistory } from '../../../src/analytics/clickhouse/group-history.js';
import { tablesOf } from '../../../src/analytics/clickhouse/schema.js';
import { openClickhouseAnalytics } from '../../../src/analytics/clickhouse/store.js';
import { type AnalyticsRepo, createAnalyticsRepo } from '../../../src/analytics/repo.js';
import type { ClickInput } from '../../../src/analytics/write/click-input.js';
import type { LinkService } from '../../../src/links/service.js';
import { parseClickhouseUrl } from '../../../src/store/clickhouse-url.js';
import type { OrgContext } from '../../../src/tenancy/context.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { postgresKind, sqliteKind, type TestStore } from '../../helpers/stores.js';
import { type Dataset, reportOutcomes, seed } from '../dataset.js';
import { analyticsStore, DAY, type Harness, makeHarness, makeOrg, storedClicks } from '../setup.js';
import { extraClicks, extraOutcomes } from './extra-dataset.js';
import { ALL_DIMENSIONS, analyticsCli } from './setup.js';

/**
 * `linkhop analytics backfill --to clickhouse` and `linkhop analytics verify`, through the built command,
 * on a SQL store (SQLite, PostgreSQL) holding the analytics suites' data set (cells, QR scans, outcomes)
 * plus an organization's clicks over three months, the oldest month's raw clicks gone as retention drops
 * them: copied, every read answers as the SQL store does, outcomes per escape cell included;
 * a backfill stopped and one crashed mid-chunk, then run again, count every click once; a click the SQL
 * store takes afterwards is a difference `verify` names, exiting 1. Needs `npx tsc -p tsconfig.build.json`.
 */

type Link = Awaited<ReturnType<LinkService['create']>>;

/** What the backfill copies: every dimension (cell_outcome from the SQL store's rollups). */
const DIMENSIONS = ALL_DIMENSIONS;
const DEC = Date.UTC(2024, 11, 3, 10);
const JAN = Date.UTC(2025, 0, 14, 22);
const FEB = Date.UTC(2025, 1, 27, 23, 30);
const ALL_TIME = { from: Date.UTC(2024, 0, 1) / DAY, to: Date.UTC(2025, 11, 31) / DAY };
const dayOf = (ms: number) => Math.floor(ms / DAY);
const WINDOWS = [
  ALL_TIME,
  { from: dayOf(JAN) - 3, to: dayOf(FEB) },
  { from: dayOf(FEB), to: dayOf(FEB) + 1 },
];

const sorted = <T>(rows: readonly T[], key: (row: T) => string) =>
  [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** Clicks of `links` over a month from `start`, varied in every rolled-up field. */
function monthOfClicks(org: OrgContext, links: Link[], start: number, n: number): ClickInput[] {
  return Array.from({ length: n }, (_, i) => ({
    orgId: org.orgId,
    linkId: (links[i % links.length] as Link).id,
    at: start + i * 3_700_000,
    bot: i % 11 === 0,
    variant: i % 4 === 0 ? i % 3 : null,
    routed: null,
    country: ['US', 'FR', null][i % 3] ?? null,
    city: i % 5 === 0 ? 'Paris' : null,
    device: (['ios', 'android', 'desktop', 'other'] as const)[i % 4] ?? 'other',
    sourceApp: i % 6 === 0 ? 'instagram' : null,
    referrerHost: i % 7 === 0 ? 'news.example' : null,
    platformKey: i % 2 === 0 ? 'youtube' : null,
    tapId: null,
    ...(i % 9 === 0 ? { source: 'qr' as const } : {}),
  }));
}

for (const kind of [sqliteKind, postgresKind]) {
  describe.skipIf(clickhouseKind.skipReason !== null || kind.skipReason !== null)(
    `analytics backfill and verify (${kind.name})`,
    () => {
      let ch: TestClickhouse;
      let main: TestStore;
      let h: Harness;
      let d: Dataset;
      let months: OrgContext;
      let monthLinks: Link[];
      let sqlRepo: AnalyticsRepo;
      let databaseUrl: string;
      const opened: { close(): Promise<void> }[] = [];

      /** The built command with both URLs. */
      const cli = (analyticsUrl: string | null, ...args: string[]) =>
        analyticsCli(databaseUrl, analyticsUrl, ...args);

      const freshUrl = () => ch.urlFor(`t_${Math.random().toString(16).slice(2, 14)}`);
      async function openCh(url: string) {
        const store = await openClickhouseAnalytics(url, main.store);
        opened.push(store);
        return store;
      }
      async function rawRows(url: string): Promise<number> {
        const client = createClickhouseClient(parseClickhouseUrl(url));
        try {
          const [row] = await client.rows<{ n: string }>(
            `SELECT count() AS n FROM ${parseClickhouseUrl(url).database}.clicks`,
          );
          return Number(row?.n);
        } finally {
          await client.close();
        }
      }
      const sqlRawRows = async () =>
        (await Promise.all([d.org, d.other, months].map((org) => storedClicks(main.store, org.orgId)))).flat()
          .length;

      beforeAll(async () => {
        ch = await startClickhouse();
        main = await analyticsStore(kind);
        databaseUrl = main.schema
          ? `${main.url}?options=${encodeURIComponent(`-c search_path=${main.schema}`)}`
          : main.url;
        h = makeHarness(main.store);
        sqlRepo = createAnalyticsRepo(main.store);
        const [org, other] = [await makeOrg(main.store), await makeOrg(main.store)];
        d = await seed(h, { org, other });
        await reportOutcomes(h, d);
        for (const click of extraClicks(d)) h.buffer.record(click);
        await h.buffer.flush();
        for (const report of extraOutcomes(d, h.tapTokens))
          await h.analytics.recordOutcome(report.token, report.outcome);

        months = await makeOrg(main.store);
        monthLinks = [];
        for (const slug of ['m-one', 'm-two', 'm-three'])
          monthLinks.push(await h.links.create(months, { url: `https://example.com/${slug}`, slug }));
        for (const [start, n] of [
          [DEC, 90],
          [JAN, 140],
          [FEB, 60],
        ] as const) {
          for (const click of monthOfClicks(months, monthLinks, start, n)) h.buffer.record(click);
          await h.buffer.flush();
        }
        // Retention dropped December's raw clicks; its rollups stay (they are kept for ever).
        await main.store.db
          .deleteFrom('click_blocks')
          .where('org_id', '=', months.orgId)
          .where('first_at', '<', Date.UTC(2025, 0, 1))
          .execute();
      });
      afterAll(async () => {
        for (const store of opened) await store.close();
        await main?.dispose();
        await ch?.stop();
      });

      it('refuses without ANALYTICS_URL', () => {
        const run = cli(null, 'backfill', '--to', 'clickhouse');
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/ANALYTICS_URL is not set/);
      });

      it('copies every month; verify finds them equal; every read answers as the SQL store', async () => {
        const url = freshUrl();
        const run = cli(url, 'backfill', '--to', 'clickhouse', '--chunk-clicks', '40');
        expect(run.stderr).toMatch(/^2025-01: \d+ clicks in \d+ chunks, .* \(\d+ clicks\/s\)$/m);
        expect(run.status, run.stderr).toBe(0);
        expect(run.json).toMatchObject({ backfilled: true, mismatched: 0 });
        expect(run.json.chunks).toBeGreaterThan(3);
        expect(run.json.rollupRows).toBeGreaterThan(0);
        expect(await rawRows(url)).toBe(await sqlRawRows());

        const checked = cli(url, 'verify', '--from', '2024-01-01');
        expect(checked.status, checked.stderr).toBe(0);
        expect(checked.json).toMatchObject({ equal: true, differences: [] });
        expect(checked.json.links).toBeGreaterThanOrEqual(7);

        const chRepo = (await openCh(url)).store;
        const key = (row: { dimension: string; value: string }) => `${row.dimension}\n${row.value}`;
        for (const orgId of [d.org.orgId, d.other.orgId, months.orgId])
          for (const window of WINDOWS) {
            const at = JSON.stringify({ orgId, window });
            const expected = sorted(await sqlRepo.sums({ orgId }, DIMENSIONS, window), key);
            expect(sorted(await chRepo.sums({ orgId }, DIMENSIONS, window), key), at).toEqual(expected);
            const days = async (repo: Pick<AnalyticsRepo, 'daily'>) =>
              [...(await repo.daily({ orgId }, window))].sort((a, b) => a[0] - b[0]);
            expect(await days(chRepo), at).toEqual(await days(sqlRepo));
            const link = { orgId, linkId: (monthLinks[1] as Link).id };
            expect(sorted(await chRepo.sums(link, DIMENSIONS, window), key), at).toEqual(
              sorted(await sqlRepo.sums(link, DIMENSIONS, window), key),
            );
          }
        // December exists only as rollups, and the cells only in rollups: both came over.
        const december = { from: dayOf(DEC) - 3, to: dayOf(DEC) + 25 };
        expect((await chRepo.sums({ orgId: months.orgId }, ['total'], december))[0]?.clicks).toBe(81);
        expect((await chRepo.sums({ orgId: d.org.orgId }, ['cell'], ALL_TIME)).length).toBeGreaterThan(0);
        // The bandit's read over every organization: the same cells and outcomes.
        const cells = (repo: Pick<AnalyticsRepo, 'sums'>) =>
          repo.sums({ orgId: '*' }, ['cell_outcome'], ALL_TIME);
        const bandit = sorted(await cells(sqlRepo), key);
        expect(bandit.length).toBeGreaterThan(0);
        expect(sorted(await cells(chRepo), key)).toEqual(bandit);
        // A folder of the data set reads the same from its group rollups as from the SQL store's.
        for (const window of WINDOWS) {
          const folder = { orgId: d.org.orgId, folderId: d.folderId };
          expect(sorted(await chRepo.sums(folder, DIMENSIONS, window), key)).toEqual(
            sorted(await sqlRepo.sums(folder, DIMENSIONS, window), key),
          );
        }

        // A second run finds every month done and copies nothing.
        const again = cli(url, 'backfill', '--to', 'clickhouse');
        expect(again.json).toMatchObject({ backfilled: true, months: 0, clicks: 0 });
        expect(cli(url, 'verify').status).toBe(0);
      });

      it('stopped, then crashed between a chunk and its checkpoint, then run again: each click once', async () => {
        const url = freshUrl();
        const stopped = cli(
          url,
          'backfill',
          '--to',
          'clickhouse',
          '--chunk-clicks',
          '30',
          '--max-chunks',
          '2',
        );
        expect(stopped.status, stopped.stderr).toBe(0);
        expect(stopped.json).toMatchObject({ backfilled: false, chunks: 2 });
        expect(stopped.stderr).toMatch(/stopped after 2 chunks/);
        expect(cli(url, 'verify').status).toBe(1);

        // In process: the third chunk is written, then its answer is lost (the process dies there).
        const parsed = parseClickhouseUrl(url);
        const ck = await openCh(url);
        const client = createClickhouseClient(parsed);
        opened.push(client);
        let writes = 0;
        const crashing = {
          async writeClicks(clicks: readonly ClickInput[], batchId?: string) {
            await ck.store.writeClicks(clicks, batchId);
            writes += 1;
            if (writes === 1) throw new Error('socket hang up (answer lost)');
            return true;
          },
        };
        const options = {
          source: createBackfillSource(main.store),
          groups: createGroupHistory(main.store),
          client,
          tables: tablesOf(parsed.database),
          chunkClicks: 30,
          log: () => {},
        };
        await expect(backfill({ ...options, store: crashing })).rejects.toThrow(/answer lost/);

        const resumed = cli(url, 'backfill', '--to', 'clickhouse', '--chunk-clicks', '30');
        expect(resumed.status, resumed.stderr).toBe(0);
        expect(resumed.stderr).toMatch(/resuming from the checkpoint/);
        expect(resumed.json).toMatchObject({ backfilled: true, mismatched: 0 });
        expect(await rawRows(url)).toBe(await sqlRawRows());
        const checked = cli(url, 'verify');
        expect(checked.status, checked.stderr).toBe(0);
        expect(checked.json.sqlClicks).toBe(checked.json.clickhouseClicks);
      });

      it('a click the SQL store takes after the backfill: verify names its link and exits 1', async () => {
        const url = freshUrl();
        expect(cli(url, 'backfill', '--to', 'clickhouse').status).toBe(0);
        expect(cli(url, 'verify').status).toBe(0);
        const late = monthLinks[2] as Link;
        h.buffer.record({ ...monthOfClicks(months, [late], JAN + 5 * DAY, 2)[1], bot: false } as ClickInput);
        await h.buffer.flush();
        const checked = cli(url, 'verify', '--from', '2025-01-01', '--to', '2025-01-31');
        expect(checked.status).toBe(1);
        expect(checked.json.equal).toBe(false);
        expect(checked.json.differences).toHaveLength(1);
        const [difference] = checked.json.differences;
        expect(difference).toMatchObject({ linkId: late.id, slug: 'm-three' });
        expect(difference.sql).toBe(difference.clickhouse + 1);
        expect(checked.stderr).toContain(`differs: link ${late.id} (m-three) sql ${difference.sql}`);
        // Outside the window, the same two stores agree.
        expect(cli(url, 'verify', '--from', '2025-02-01').status).toBe(0);
      });
    },
  );
}
