import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfill } from '../../../src/analytics/clickhouse/backfill.js';
import { createBackfillSource } from '../../../src/analytics/clickhouse/backfill-source.js';
import { createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { createGroupHistory } from '../../../src/analytics/clickhouse/group-history.js';
import { type RestoreOptions, restore } from '../../../src/analytics/clickhouse/restore.js';
import { createRestoreSource } from '../../../src/analytics/clickhouse/restore-source.js';
import { applySchema, tablesOf } from '../../../src/analytics/clickhouse/schema.js';
import {
  createClickhouseAnalyticsStore,
  openClickhouseAnalytics,
} from '../../../src/analytics/clickhouse/store.js';
import { type DayRange, OUTCOMES, type OutcomeRow } from '../../../src/analytics/model.js';
import { type AnalyticsStore, createAnalyticsRepo } from '../../../src/analytics/repo.js';
import type { ClickInput } from '../../../src/analytics/write/click-input.js';
import type { LinkService } from '../../../src/links/service.js';
import { parseClickhouseUrl } from '../../../src/store/clickhouse-url.js';
import type { OrgContext } from '../../../src/tenancy/context.js';
import { chdbKind } from '../../helpers/chdb.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { postgresKind, sqliteKind, type TestStore } from '../../helpers/stores.js';
import { analyticsStore, DAY, makeLinks, makeOrg, storedClicks } from '../setup.js';
import { type Captured, capturing, numbersAsNumbers, replayOnChdb } from './chdb-replay.js';
import { ALL_DIMENSIONS, analyticsCli } from './setup.js';

/**
 * `linkhop analytics backfill --to main`, the way back from ClickHouse, on a main database of each kind
 * (SQLite, PostgreSQL): clicks and outcomes in the main database, the forward backfill into ClickHouse
 * (December's raw clicks gone there before it, as retention drops them), then the "service" writes more
 * clicks and outcomes to ClickHouse under its own batch ids (escape cells, QR scans, expired links, bots,
 * a batch across a month's edge, outcomes for taps of both periods, a replayed report). Copied back:
 * every dimension per organization and per link equals ClickHouse's over both periods and nothing of the
 * first period counts twice; stopped, crashed between a group's write and its checkpoint, run again: each
 * click once, and a third run copies nothing. The built command end to end (`npx tsc -p
 * tsconfig.build.json` first) and its refusal without ANALYTICS_URL. Last, every statement of a stopped,
 * crashed and resumed run replayed on chdb (26.x), answering as 18.16 did.
 */

type Link = Awaited<ReturnType<LinkService['create']>>;

/** The copies run whole backfills and spawn the CLI: minutes on a loaded CI machine, not the default 20 s. */
const SLOW = 120_000;
const DEC = Date.UTC(2024, 11, 4, 9);
const JAN = Date.UTC(2025, 0, 6, 7);
/** Every instance moved to ClickHouse here. */
const SWITCH = Date.UTC(2025, 1, 10);
const dayOf = (ms: number) => Math.floor(ms / DAY);
const WINDOWS: DayRange[] = [
  { from: dayOf(Date.UTC(2024, 10, 1)), to: dayOf(Date.UTC(2025, 3, 30)) },
  { from: dayOf(Date.UTC(2025, 1, 1)), to: dayOf(Date.UTC(2025, 1, 20)) },
  { from: dayOf(SWITCH), to: dayOf(Date.UTC(2025, 2, 31)) },
];
/**
 * The first period: its clicks are the main database's alone, which the way back must leave as they were
 * (its taps' outcomes can grow: one reported after the switch counts on its tap's day).
 */
const BEFORE_SWITCH: DayRange = { from: dayOf(Date.UTC(2024, 10, 1)), to: dayOf(SWITCH) - 1 };
const CLICK_DIMENSIONS = ALL_DIMENSIONS.filter((dimension) => !dimension.includes('outcome'));

const sorted = <T>(rows: readonly T[]) =>
  [...rows].map((row) => JSON.stringify(row)).sort() as unknown as readonly string[];

/** `n` clicks of `links` from `start` on, varied in every field a rollup or a cell reads. */
function clicksOf(org: OrgContext, links: Link[], start: number, n: number, tag: string): ClickInput[] {
  return Array.from({ length: n }, (_, i) => {
    const device = (['ios', 'android', 'desktop', 'other'] as const)[i % 4] ?? 'other';
    const served = i % 5 === 0 && (device === 'ios' || device === 'android');
    return {
      orgId: org.orgId,
      linkId: (links[i % links.length] as Link).id,
      at: start + i * 1_900_000,
      bot: i % 13 === 7,
      variant: i % 4 === 1 ? i % 3 : null,
      routed: i % 3 === 0 ? 'https://example.com/routed' : null,
      country: ['US', 'FR', null, 'de'][i % 4] ?? null,
      city: i % 5 === 0 ? 'Paris' : null,
      device,
      sourceApp: served ? (['instagram', ''][i % 2] ?? null) : i % 6 === 0 ? 'tiktok' : null,
      referrerHost: i % 7 === 0 ? 'News.Example' : null,
      platformKey: served || i % 2 === 0 ? 'youtube' : null,
      tapId: served || i % 3 === 1 ? `${tag}-${i}` : null,
      ...(served ? { strategy: (['universal', 'scheme', 'intent'] as const)[i % 3] ?? 'intent' } : {}),
      ...(i % 9 === 0 ? { source: 'qr' as const } : {}),
      ...(i % 17 === 0 ? { expired: true } : {}),
    };
  });
}

/** A tap's outcome report as the service makes it, `cell` facts included or not. */
function outcomeOf(click: ClickInput, outcome: number, withCell: boolean, later = 5_000): OutcomeRow {
  return {
    tapId: click.tapId as string,
    orgId: click.orgId,
    linkId: click.linkId,
    day: dayOf(click.at),
    outcome: OUTCOMES[outcome % 3] ?? 'opened',
    variant: click.variant,
    platformKey: click.platformKey,
    ...(withCell
      ? { sourceApp: click.sourceApp, device: click.device, strategy: click.strategy ?? null }
      : {}),
    at: click.at + later,
  };
}

/** Clicks written to ClickHouse by the service, each batch under its own id (one without one). */
async function serviceWrites(ch: AnalyticsStore, org: OrgContext, links: Link[], tag: string) {
  const batches = [
    clicksOf(org, links, SWITCH + 3_600_000, 40, `${tag}-a`),
    clicksOf(org, links, Date.UTC(2025, 1, 20, 4), 25, `${tag}-b`),
    // 2025-02-28 23:30 onward: one batch, two months (two partitions, two slices).
    clicksOf(org, links, Date.UTC(2025, 1, 28, 23, 30), 6, `${tag}-c`),
    clicksOf(org, links, Date.UTC(2025, 2, 3, 12), 30, `${tag}-d`),
  ];
  for (const [i, batch] of batches.entries())
    await ch.writeClicks(batch, i === 3 ? undefined : `b-${randomUUID()}`);
  const taps = batches.flat().filter((click) => click.tapId !== null);
  for (const [i, click] of taps.entries()) {
    if (i % 3 === 2) continue;
    expect(await ch.insertOutcome(outcomeOf(click, i, true))).toBe(true);
  }
  // A second report of a tap: the first stays.
  expect(await ch.insertOutcome(outcomeOf(taps[0] as ClickInput, 1, true, 60_000))).toBe(false);
  return batches.flat().length;
}

for (const kind of [sqliteKind, postgresKind]) {
  describe.skipIf(clickhouseKind.skipReason !== null || kind.skipReason !== null)(
    `analytics backfill --to main (${kind.name})`,
    () => {
      let ch: TestClickhouse;
      const disposals: (() => Promise<void>)[] = [];

      beforeAll(async () => {
        ch = await startClickhouse();
      });
      afterAll(async () => {
        for (const dispose of disposals.reverse()) await dispose();
        await ch?.stop();
      });

      /**
       * A main database with two organizations' clicks and outcomes, forwarded into a fresh ClickHouse
       * database, then the service's own writes there.
       */
      async function scenario() {
        const main: TestStore = await analyticsStore(kind);
        disposals.push(() => main.dispose());
        const sql = createAnalyticsRepo(main.store);
        const links = makeLinks(main.store);
        const orgs = [await makeOrg(main.store), await makeOrg(main.store)];
        const linksOf = new Map<string, Link[]>();
        for (const [i, org] of orgs.entries()) {
          const list: Link[] = [];
          for (const n of i === 0 ? [1, 2, 3] : [4])
            list.push(await links.create(org, { url: `https://example.com/${n}`, slug: `s${n}-${i}` }));
          linksOf.set(org.orgId, list);
        }
        const sqlEra: ClickInput[] = [];
        // Tap ids are short (the SQL store keeps 36 characters of one): the period, the organization, the click.
        for (const [o, org] of orgs.entries())
          for (const [start, n, tag] of [
            [DEC, 30, 'dec'],
            [JAN, 45, 'jan'],
            [SWITCH - 5 * DAY, 20, 'feb'],
          ] as const) {
            const clicks = clicksOf(org, linksOf.get(org.orgId) as Link[], start, n, `${tag}-${o}`);
            expect(await sql.writeClicks(clicks, `b-${randomUUID()}`)).toBe(true);
            sqlEra.push(...clicks);
          }
        const sqlTaps = sqlEra.filter((click) => click.tapId !== null);
        // The main database's outcomes carry no cell (the forward backfill copies rows, not cells).
        for (const [i, click] of sqlTaps.entries())
          if (i % 4 === 0) await sql.insertOutcome(outcomeOf(click, i, false));
        // Retention dropped December's raw clicks; their rollups stay.
        await main.store.db
          .deleteFrom('click_blocks')
          .where('first_at', '<', Date.UTC(2025, 0, 1))
          .execute();

        const database = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const url = ch.urlFor(database);
        const opened = await openClickhouseAnalytics(url, main.store);
        const client = createClickhouseClient({ ...parseClickhouseUrl(url), useDatabase: false });
        disposals.push(async () => {
          await opened.close();
          await client.close();
        });
        const forward = await backfill({
          source: createBackfillSource(main.store),
          store: opened.store,
          groups: createGroupHistory(main.store),
          client,
          tables: tablesOf(database),
          log: () => {},
        });
        expect(forward.complete).toBe(true);

        let serviceClicks = 0;
        for (const [o, org] of orgs.entries())
          serviceClicks += await serviceWrites(opened.store, org, linksOf.get(org.orgId) as Link[], `s-${o}`);
        // Outcomes, after the switch, of taps served before it: one the main database never had.
        for (const [i, click] of sqlTaps.entries())
          if (i % 4 === 2 && click.at >= Date.UTC(2025, 0, 1))
            expect(
              await opened.store.insertOutcome({ ...outcomeOf(click, i + 1, true), at: SWITCH + i }),
            ).toBe(true);

        const beforeSums = await Promise.all(
          orgs.map((org) => sql.sums({ orgId: org.orgId }, CLICK_DIMENSIONS, BEFORE_SWITCH)),
        );
        const rawRows = async () =>
          (await Promise.all(orgs.map((org) => storedClicks(main.store, org.orgId)))).flat().length;
        return {
          main,
          sql,
          clickhouse: opened.store,
          client,
          database,
          url,
          orgs,
          linksOf,
          serviceClicks,
          sqlRawBefore: await rawRows(),
          rawRows,
          options: (over: Partial<RestoreOptions> = {}): RestoreOptions => ({
            source: createRestoreSource(client, tablesOf(database)),
            store: sql,
            client,
            database,
            log: () => {},
            ...over,
          }),
          /** Both stores answer every read alike, and the first period is as it was. */
          async expectSame(): Promise<void> {
            for (const [i, org] of orgs.entries()) {
              const scope = { orgId: org.orgId };
              const ids = (linksOf.get(org.orgId) as Link[]).map((link) => link.id);
              for (const window of WINDOWS) {
                const at = JSON.stringify({ org: i, window });
                expect(sorted(await sql.sums(scope, ALL_DIMENSIONS, window)), at).toEqual(
                  sorted(await opened.store.sums(scope, ALL_DIMENSIONS, window)),
                );
                expect(sorted(await sql.linkSums(org.orgId, ids, ALL_DIMENSIONS, window)), at).toEqual(
                  sorted(await opened.store.linkSums(org.orgId, ids, ALL_DIMENSIONS, window)),
                );
                expect(sorted(await sql.linkTotals(scope, window)), at).toEqual(
                  sorted(await opened.store.linkTotals(scope, window)),
                );
                expect(sorted([...(await sql.daily(scope, window))]), at).toEqual(
                  sorted([...(await opened.store.daily(scope, window))]),
                );
              }
              expect(sorted(await sql.sums(scope, CLICK_DIMENSIONS, BEFORE_SWITCH))).toEqual(
                sorted(beforeSums[i] ?? []),
              );
            }
            // Every organization's cell outcomes together (the bandit's read).
            const window = WINDOWS[0] as DayRange;
            expect(sorted(await sql.sums({ orgId: '*' }, ['cell_outcome'], window))).toEqual(
              sorted(await opened.store.sums({ orgId: '*' }, ['cell_outcome'], window)),
            );
          },
        };
      }

      it(
        'copies the service’s clicks and outcomes back: every read answers as ClickHouse’s, nothing twice',
        async () => {
          const s = await scenario();
          // Before: the second period is ClickHouse's alone.
          const before = await s.sql.sums(
            { orgId: (s.orgs[0] as OrgContext).orgId },
            ['total'],
            WINDOWS[2] as DayRange,
          );
          expect(before).toEqual([]);
          const lines: string[] = [];
          // A group per slice: each organization's four batches make five (one crosses into March), and the
          // two slices of that batch are two groups, one id each.
          const report = await restore(s.options({ chunkClicks: 1, log: (line) => lines.push(line) }));
          expect(report).toMatchObject({
            complete: true,
            clicks: s.serviceClicks,
            refusedGroups: 0,
            rollupOnlyMonths: 1,
            clickhouseChanged: false,
          });
          expect(report.groups).toBe(10);
          expect(report.outcomes).toBeGreaterThan(20);
          // The forward backfill's outcomes went back to where they came from: each left alone.
          expect(report.outcomesHeld).toBeGreaterThan(5);
          expect(await s.rawRows()).toBe(s.sqlRawBefore + s.serviceClicks);
          expect(lines.join('\n')).toMatch(
            /^not copied: 1 month with rollups in ClickHouse and no raw click \(2024-12: \d+ clicks\)/m,
          );
          expect(lines.join('\n')).toMatch(
            /^2025-03: \d+ clicks in 4 groups in [\d.]+ s \(\d+ clicks\/s\), \d+ outcomes \(\d+ already held\) in [\d.]+ s \(\d+ taps\/s\)$/m,
          );
          await s.expectSame();

          const again = await restore(s.options());
          expect(again).toMatchObject({ complete: true, months: 0, groups: 0, clicks: 0, outcomes: 0 });
        },
        SLOW,
      );

      it(
        'stopped, then crashed between a group’s write and its checkpoint, then run again: each click once',
        async () => {
          const s = await scenario();
          const stopped = await restore(s.options({ chunkClicks: 15, maxChunks: 2 }));
          expect(stopped).toMatchObject({ complete: false, groups: 2 });

          let crashed = 0;
          const crashing = {
            ...s.sql,
            async writeClicks(clicks: readonly ClickInput[], batchId?: string) {
              expect(await s.sql.writeClicks(clicks, batchId)).toBe(true);
              crashed += clicks.length;
              throw new Error('killed before the checkpoint');
            },
          };
          await expect(restore(s.options({ chunkClicks: 15, store: crashing }))).rejects.toThrow(/killed/);
          expect(crashed).toBeGreaterThan(0);

          const lines: string[] = [];
          const resumed = await restore(s.options({ chunkClicks: 15, log: (line) => lines.push(line) }));
          expect(lines[0]).toMatch(/^resuming from the checkpoint/);
          // The crashed group again, under its id: the main database's ledger refuses it.
          expect(resumed).toMatchObject({ complete: true, refusedGroups: 1 });
          expect(stopped.clicks + crashed + resumed.clicks).toBe(s.serviceClicks);
          expect(await s.rawRows()).toBe(s.sqlRawBefore + s.serviceClicks);
          await s.expectSame();

          const third = await restore(s.options({ chunkClicks: 15 }));
          expect(third).toMatchObject({ complete: true, months: 0, groups: 0, clicks: 0, outcomes: 0 });
          expect(await s.rawRows()).toBe(s.sqlRawBefore + s.serviceClicks);
        },
        SLOW,
      );

      it(
        'says so when ClickHouse takes writes during the run (an instance still on it)',
        async () => {
          const s = await scenario();
          const org = s.orgs[1] as OrgContext;
          const late = clicksOf(org, s.linksOf.get(org.orgId) as Link[], Date.UTC(2025, 2, 14), 1, 'late');
          const lines: string[] = [];
          const report = await restore(
            s.options({
              store: {
                ...s.sql,
                async writeClicks(clicks, batchId) {
                  await s.clickhouse.writeClicks(late, `b-late-${randomUUID()}`);
                  return s.sql.writeClicks(clicks, batchId);
                },
              },
              log: (line) => lines.push(line),
            }),
          );
          expect(report.clickhouseChanged).toBe(true);
          expect(lines.at(-1)).toMatch(/^ClickHouse changed during the run .*an instance still writes there/);
        },
        SLOW,
      );

      it(
        'the built command: --to main end to end, verify equal after; refused without ANALYTICS_URL',
        async () => {
          const s = await scenario();
          const databaseUrl = s.main.schema
            ? `${s.main.url}?options=${encodeURIComponent(`-c search_path=${s.main.schema}`)}`
            : s.main.url;
          const cli = (analyticsUrl: string | null, ...args: string[]) =>
            analyticsCli(databaseUrl, analyticsUrl, ...args);

          const refused = cli(null, 'backfill', '--to', 'main');
          expect(refused.status).toBe(1);
          expect(refused.stderr).toMatch(
            /ANALYTICS_URL is not set: name the ClickHouse database to copy back from/,
          );
          expect(await s.rawRows()).toBe(s.sqlRawBefore);

          const run = cli(s.url, 'backfill', '--to', 'main');
          expect(run.status, run.stderr).toBe(0);
          expect(run.json).toMatchObject({
            restored: true,
            clicks: s.serviceClicks,
            rollupOnlyMonths: 1,
            clickhouseChanged: false,
          });
          expect(run.stderr).toMatch(
            /^2025-02: \d+ clicks in 1 group in [\d.]+ s \(\d+ clicks\/s\), .* \(\d+ taps\/s\)$/m,
          );
          expect(await s.rawRows()).toBe(s.sqlRawBefore + s.serviceClicks);
          const checked = cli(s.url, 'verify', '--from', '2024-11-01', '--to', '2025-04-30');
          expect(checked.status, checked.stderr).toBe(0);
          expect(checked.json).toMatchObject({ equal: true, differences: [] });

          const again = cli(s.url, 'backfill', '--to', 'main');
          expect(again.json).toMatchObject({ restored: true, months: 0, clicks: 0 });
          expect(cli(ch.urlFor('t_missing'), 'backfill', '--to', 'main').stderr).toMatch(
            /has no linkhop clicks or outcomes tables/,
          );
        },
        SLOW,
      );
    },
  );
}

/**
 * A row as compared: 64-bit integers as numbers (18.16 quotes them in JSON, 26.x does not), and without
 * the checkpoint's instant, which each server reads in its own timezone.
 */
const normal = (row: unknown): string =>
  JSON.stringify(row, (key, value) => (key === 'at_s' ? undefined : numbersAsNumbers(key, value)));

describe.skipIf(clickhouseKind.skipReason !== null || chdbKind.skipReason !== null)(
  'the way back on chdb (26.x): every statement runs and answers as on 18.16',
  () => {
    it('replays a stopped, crashed and resumed run', async () => {
      const ch = await startClickhouse();
      const main = await analyticsStore(sqliteKind);
      const log: Captured[] = [];
      const database = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const client = capturing(
        createClickhouseClient({ ...parseClickhouseUrl(ch.urlFor(database)), useDatabase: false }),
        log,
      );
      try {
        await applySchema(client, tablesOf(database));
        const service = createClickhouseAnalyticsStore({ client, database, main: main.store });
        const org = await makeOrg(main.store);
        const links = [await makeLinks(main.store).create(org, { url: 'https://example.com/c', slug: 'c' })];
        const clicks = await serviceWrites(service, org, links, 'c');
        // A batch of the forward backfill's: left where it is.
        await service.writeClicks(clicksOf(org, links, JAN, 12, 'fwd'), 'backfill-202501-x');
        const source = createRestoreSource(client, tablesOf(database));
        expect(await source.hasTables()).toBe(true);
        const sql = createAnalyticsRepo(main.store);
        const options = { source, client, database, chunkClicks: 20, log: () => {} };
        await restore({ ...options, store: sql, maxChunks: 1 });
        const crashing = {
          ...sql,
          async writeClicks(rows: readonly ClickInput[], batchId?: string): Promise<boolean> {
            await sql.writeClicks(rows, batchId);
            throw new Error('killed');
          },
        };
        await expect(restore({ ...options, store: crashing })).rejects.toThrow(/killed/);
        const report = await restore({ ...options, store: sql });
        expect(report).toMatchObject({ complete: true, refusedGroups: 1 });
        expect((await storedClicks(main.store, org.orgId)).length).toBe(clicks);
      } finally {
        await client.close();
        await main.dispose();
        await ch.stop();
      }

      const { compared } = replayOnChdb(log, normal);
      // The way back's reads were among them: slices (with their ranges), clicks, outcomes, checkpoint.
      for (const read of [
        'GROUP BY batch_id',
        'batch_id IN',
        'GROUP BY org_id',
        'restore_checkpoint ORDER BY',
      ])
        expect(
          log.some((step) => step.kind === 'rows' && step.statement.includes(read)),
          read,
        ).toBe(true);
      expect(log.some((step) => step.statement.includes("batch_id <= '"))).toBe(true);
      expect(compared).toBeGreaterThan(30);
    }, 120_000);
  },
);
