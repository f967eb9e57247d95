import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfill } from '../../../src/analytics/clickhouse/backfill.js';
import { createBackfillSource } from '../../../src/analytics/clickhouse/backfill-source.js';
import { type ClickhouseClient, createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { createGroupHistory } from '../../../src/analytics/clickhouse/group-history.js';
import { createClickhouseHousekeeping } from '../../../src/analytics/clickhouse/housekeeping.js';
import { outcomeRow } from '../../../src/analytics/clickhouse/rows.js';
import { applySchema, tablesOf } from '../../../src/analytics/clickhouse/schema.js';
import { createClickhouseAnalyticsStore } from '../../../src/analytics/clickhouse/store.js';
import { type AnalyticsRepo, createAnalyticsRepo } from '../../../src/analytics/repo.js';
import { createAnalyticsService } from '../../../src/analytics/service.js';
import { createClickBuffer } from '../../../src/analytics/write/click-buffer.js';
import { createTapTokens } from '../../../src/analytics/write/tap-tokens.js';
import { parseClickhouseUrl } from '../../../src/store/clickhouse-url.js';
import { chdbKind } from '../../helpers/chdb.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { sqliteKind, type TestStore } from '../../helpers/stores.js';
import { type Dataset, reportOutcomes, seed } from '../dataset.js';
import {
  analyticsStore,
  DAY,
  type Harness,
  makeLinks,
  makeOrg,
  NOW,
  SECRET,
  silent,
  TODAY,
} from '../setup.js';
import { type Captured, capturing, replayOnChdb } from './chdb-replay.js';
import { extraClicks, extraOutcomes } from './extra-dataset.js';
import { ALL_DIMENSIONS } from './setup.js';

/**
 * The ClickHouse dialect check (issue #35): every statement the ClickHouse store issues, captured while the
 * "same answers" data set (escape cells, QR scans, outcomes, older months) is written and every read is
 * made against Debian's 18.16 server, plus a backfill of the same data from the SQL store into a second
 * database and the housekeeping's deletions (retention, erasure), is replayed in order on chdb (ClickHouse 26.x in-process): the schema, the backfill's
 * tables, every insert, every read. Each statement must run there, and each read must answer the same
 * rows as 18.16 did (as a multiset: statements without ORDER BY have no order; 64-bit integers compared
 * as numbers, since 18.16 quotes them in JSON and 26.x does not).
 */

const today = Math.floor(NOW / DAY);
const WINDOWS = [
  { from: today, to: today },
  { from: today - 45, to: today - 3 },
  { from: today - 400, to: today + 2 },
];

describe.skipIf(clickhouseKind.skipReason !== null || chdbKind.skipReason !== null)(
  'every ClickHouse statement runs on chdb (26.x) and answers as on 18.16',
  () => {
    let ch: TestClickhouse;
    let main: TestStore;
    const log: Captured[] = [];
    const clients: ClickhouseClient[] = [];
    let d: Dataset;

    beforeAll(async () => {
      ch = await startClickhouse();
      main = await analyticsStore(sqliteKind);
      const database = `t_${Math.random().toString(16).slice(2, 14)}`;
      const url = ch.urlFor(database);
      const setup = capturing(
        createClickhouseClient({ ...parseClickhouseUrl(url), useDatabase: false }),
        log,
      );
      clients.push(setup);
      await applySchema(setup, tablesOf(database));
      const client = capturing(createClickhouseClient(parseClickhouseUrl(url)), log);
      clients.push(client);
      const chRepo = createClickhouseAnalyticsStore({ client, database, main: main.store }) as AnalyticsRepo;
      const sqlRepo = createAnalyticsRepo(main.store);
      // Written to both: the SQL store is the backfill's source below.
      const both: AnalyticsRepo = {
        ...sqlRepo,
        async writeClicks(clicks, batchId) {
          await chRepo.writeClicks(clicks, batchId);
          return sqlRepo.writeClicks(clicks, batchId);
        },
        async insertOutcome(o, within) {
          await chRepo.insertOutcome(o);
          return sqlRepo.insertOutcome(o, within);
        },
      };
      const links = makeLinks(main.store);
      const tapTokens = createTapTokens({ secret: SECRET, now: () => NOW });
      const h: Harness = {
        store: main.store,
        links,
        tapTokens,
        analytics: createAnalyticsService({
          store: main.store,
          analytics: true,
          links,
          tapTokens,
          emitEvent: async () => {},
          now: () => new Date(NOW),
          repo: both,
        }),
        emitted: [],
        buffer: createClickBuffer({ store: main.store, logger: silent, write: both.writeClicks }),
      };
      const org = await makeOrg(main.store);
      d = await seed(h, { org, other: await makeOrg(main.store) });
      await reportOutcomes(h, d);
      for (const click of extraClicks(d)) h.buffer.record(click);
      await h.buffer.flush();
      for (const report of extraOutcomes(d, tapTokens))
        await h.analytics.recordOutcome(report.token, report.outcome);

      // Every read, over scopes and windows.
      const scopes = [
        { orgId: org.orgId },
        { orgId: org.orgId, linkId: d.alpha.id },
        { orgId: org.orgId, folderId: d.folderId },
        { orgId: org.orgId, tag: 'promo' },
        { orgId: org.orgId, folderId: d.folderId, tag: 'promo' },
        { orgId: d.other.orgId },
        { orgId: '*' },
      ];
      for (const scope of scopes)
        for (const window of WINDOWS) {
          await chRepo.sums(scope, ALL_DIMENSIONS, window);
          if (scope.orgId === '*') continue;
          await chRepo.daily(scope, window);
          await chRepo.perLink(scope, window, 2);
        }
      for (const window of WINDOWS)
        await chRepo.linkSums(org.orgId, [d.alpha.id, d.beta.id, d.gamma.id], ALL_DIMENSIONS, window);
      for (const link of [d.alpha, d.beta]) await chRepo.clicks(link.id, TODAY - 30 * DAY, 50, 1);
      for (const scope of scopes.slice(0, 4)) for await (const _page of chRepo.exportPages(scope, 0, 3));

      // The backfill's statements: its tables, chunks, rollups and outcomes, into a second database.
      const target = `t_${Math.random().toString(16).slice(2, 14)}`;
      await applySchema(setup, tablesOf(target));
      const targetClient = capturing(
        createClickhouseClient({ ...parseClickhouseUrl(ch.urlFor(target)) }),
        log,
      );
      clients.push(targetClient);
      await backfill({
        source: createBackfillSource(main.store),
        groups: createGroupHistory(main.store),
        store: createClickhouseAnalyticsStore({ client: targetClient, database: target, main: main.store }),
        client: targetClient,
        tables: tablesOf(target),
        chunkClicks: 5,
        log: () => {},
      });
      // A second first report of a tap that slipped past the write's check (two at once, Redis down), so
      // that the outcome correction (run by pruneBatchIds) has a tap to correct.
      await client.insert(`${database}.outcomes`, [
        outcomeRow({
          tapId: 'x3',
          orgId: org.orgId,
          linkId: d.beta.id,
          day: today - 5,
          outcome: 'browser',
          variant: null,
          platformKey: 'spotify',
          sourceApp: 'tiktok',
          device: 'android',
          strategy: 'intent',
          at: NOW + 1,
        }),
      ]);
      // Last, what deletes: pruning the ledger (after the outcome correction), retention's partitions,
      // an erased organization (a mutation: nothing is read after it).
      await chRepo.pruneBatchIds(Date.now() + 10 * DAY);
      const allTime = WINDOWS[2] as (typeof WINDOWS)[number];
      await chRepo.sums({ orgId: org.orgId }, ALL_DIMENSIONS, allTime);
      expect(
        log.some((step) => step.statement.startsWith(`INSERT INTO ${database}.outcome_corrections`)),
      ).toBe(true);
      // A database made before the outcome rollups: their tables gone, the schema applied again fills them.
      for (const name of [
        'outcome_rollups_mv',
        'org_outcome_rollups_mv',
        'outcome_corrections_mv',
        'org_outcome_corrections_mv',
        'outcome_writes_mv',
        'outcome_rollups',
        'org_outcome_rollups',
        'outcome_writes',
        'outcome_corrections',
      ])
        await setup.command(`DROP TABLE ${database}.${name}`);
      await applySchema(setup, tablesOf(database));
      await chRepo.sums({ orgId: org.orgId }, ALL_DIMENSIONS, allTime);
      expect(
        log.some((step) => step.statement.startsWith(`INSERT INTO ${database}.outcome_rollups SELECT`)),
      ).toBe(true);
      const housekeeping = createClickhouseHousekeeping(client, tablesOf(database));
      expect(await housekeeping.dropClicksBefore(TODAY - 60 * DAY)).not.toEqual([]);
      expect(await housekeeping.eraseOrganization(d.other.orgId)).toContain('clicks');
    }, 120_000);
    afterAll(async () => {
      for (const client of clients) await client.close();
      await main?.dispose();
      await ch?.stop();
    });

    it('replays on chdb: every statement runs, every read answers the same rows', () => {
      const kinds = replayOnChdb(log);
      expect(kinds.version).toMatch(/^"2[6-9]\./);
      // The whole surface went through: DDL, writes, reads with answers.
      expect(kinds.command).toBeGreaterThanOrEqual(20);
      expect(kinds.insert).toBeGreaterThan(10);
      expect(kinds.compared).toBeGreaterThan(100);
      expect(kinds.nonEmpty).toBeGreaterThan(60);
      const distinct = new Set(log.map((step) => step.statement.replace(/'[^']*'/g, "''").slice(0, 60)));
      expect(distinct.size).toBeGreaterThan(15);
    });
  },
);
