import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type LiveClickhouse, openLiveClickhouse } from '../analytics/clickhouse/live.js';
import { createEscapeBandit } from '../analytics/read/escape-bandit.js';
import { type AnalyticsStore, createAnalyticsRepo } from '../analytics/repo.js';
import { type AnalyticsServiceDeps, createAnalyticsService } from '../analytics/service.js';
import { createClickPartitions } from '../analytics/write/click-partitions.js';
import { createClickRetention } from '../analytics/write/click-retention.js';
import { clickSink } from '../analytics/write/click-sink.js';
import { createOutcomeQueue } from '../analytics/write/outcome-queue.js';
import { createOutcomeWriter } from '../analytics/write/outcomes.js';
import { createMemoryOneShot, createRedisOneShot, createTapTokens } from '../analytics/write/tap-tokens.js';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import type { PlatformTable } from '../core/platforms/index.js';
import { composeAbTests } from '../links/ab.js';
import type { LinkRepo } from '../links/repo.js';
import type { LinkService } from '../links/service.js';
import type { Store } from '../store/database.js';
import type { EventOutbox } from '../webhooks/service.js';

export interface AnalyticsDeps {
  config: Config;
  store: Store;
  logger: Logger;
  /** Write clicks on a thread of their own (the running server) rather than in-process. */
  clickThread: boolean;
  sessionSecret: string;
  /** With REDIS_URL: tap tokens redeem once across instances. */
  redis?: Redis;
  links: AnalyticsServiceDeps['links'] & Pick<LinkService, 'present'>;
  events: EventOutbox;
  /** What A/B tests need besides the links and the analytics: to conclude a test and to drop its cache. */
  abTesting: {
    linkRepo: LinkRepo;
    table: PlatformTable;
    audit: AuditLog;
    cache: { invalidate(host: string, slug: string): void };
  };
  emitEvent: AnalyticsServiceDeps['emitEvent'];
  /** The service's clock, in milliseconds. */
  clock: () => number;
  /** ANALYTICS_URL: clicks, outcomes and their reads in ClickHouse (openClickhouseEngine). */
  clickhouse: LiveClickhouse | null;
}

/**
 * ANALYTICS_URL's ClickHouse, opened without waiting on the server (live.ts): null without it. Made
 * before the other groups, since account erasure and destination health read or delete analytics too.
 */
export function openClickhouseEngine(config: Config, store: Store, logger: Logger): LiveClickhouse | null {
  if (config.analyticsUrl === null) return null;
  return openLiveClickhouse(config.analyticsUrl, store, { logger });
}

/**
 * Analytics, wired once: clicks leave the request path through a buffer written in batches, taps redeem
 * once, refused outcomes are held and retried, the escape bandit learns off the request path, old raw
 * clicks are dropped by partition, and A/B tests are read out and concluded (by hand or by their rule).
 */
export function composeAnalytics(deps: AnalyticsDeps) {
  const { config, store, logger, events, clickhouse } = deps;
  // Reads, outcomes and clicks go to one store: ClickHouse with ANALYTICS_URL, the main database without.
  const repo: AnalyticsStore = clickhouse?.store ?? createAnalyticsRepo(store);
  const clicks = clickSink(
    config,
    store,
    logger,
    deps.clickThread,
    clickhouse && config.analyticsUrl
      ? {
          url: config.analyticsUrl,
          store: clickhouse.store,
          reached: (up) =>
            up ? clickhouse.health.markUp() : clickhouse.health.markDown(new Error('a click batch failed')),
        }
      : undefined,
  );
  // Tap outcomes the database refused (the token already spent) are held and inserted again later;
  // a held outcome is written with its app.* event, as a fresh report is.
  const outcomeQueue = createOutcomeQueue({
    insert: createOutcomeWriter(repo, events),
    logger,
    dir: config.spillDir,
  });
  // Without Redis, spent tap ids are held in this instance's memory (counted on /metrics).
  const memoryOneShot = deps.redis ? null : createMemoryOneShot();
  const tapTokens = createTapTokens({
    secret: deps.sessionSecret,
    oneShot: memoryOneShot ?? createRedisOneShot(deps.redis as NonNullable<typeof deps.redis>),
  });
  const analytics = createAnalyticsService({
    store,
    repo,
    analytics: config.analytics,
    links: deps.links,
    tapTokens,
    emitEvent: deps.emitEvent,
    outbox: events,
    now: () => new Date(deps.clock()),
    holdOutcome: (row) => outcomeQueue.hold(row),
  });
  // Escape strategies chosen per cell from every organization's outcomes, rebuilt off the request path.
  const bandit = createEscapeBandit({
    readOutcomes: analytics.allOrgCellOutcomes,
    random: Math.random,
    logger,
  });
  const abTests = composeAbTests({
    store,
    ...deps.abTesting,
    links: deps.links,
    analytics,
    events,
    logger,
    now: () => new Date(deps.clock()),
    uuid: randomUUID,
  });
  const retention = createClickRetention({
    partitions: createClickPartitions(store),
    // Also erases the analytics rows an erased organization's in-flight clicks wrote after the erasure.
    store,
    ...(clickhouse ? { clickhouse } : {}),
    retentionDays: config.clickRetentionDays,
    now: deps.clock,
    logger,
  });
  return {
    clicks,
    tapTokens,
    analytics,
    bandit,
    abTests,
    /** What analytics hold in memory, for /metrics: spent tap ids (without Redis) and refused outcomes. */
    held: () => ({ tapIds: memoryOneShot?.size() ?? 0, outcomes: outcomeQueue.stats().held }),
    start() {
      clickhouse?.start();
      clicks.start();
      retention.start();
      if (config.analytics) outcomeQueue.start();
      if (config.analytics) bandit.start();
      if (config.analytics) abTests.start();
    },
    /** Every click buffered so far is written before the store closes: none is lost on a clean shutdown. */
    async stop() {
      await clicks.stop();
      await retention.stop();
      await outcomeQueue.stop();
      await bandit.stop();
      await abTests.stop();
      await clickhouse?.close();
    },
  };
}
