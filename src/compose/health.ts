import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { GONE_SIGNALS, validateGoneSignals } from '../core/platforms/gone-signals.js';
import { CHECK_TIMEOUT_MS } from '../health/check.js';
import { createHealthDigest } from '../health/digest.js';
import { type HealthRepo, type VisitReads, visitedSinceIn } from '../health/repo.js';
import { createHealthChecker } from '../health/service.js';
import type { LinkRepo } from '../links/repo.js';
import type { LinkService } from '../links/service.js';
import { createGuardedFetcher } from '../net/guarded-fetch.js';
import type { Mailer } from '../net/mail.js';
import { isConnectionError } from '../store/db-errors.js';
import { featuresOf, isTier } from '../tenancy/plans.js';
import type { EventOutbox } from '../webhooks/service.js';

/**
 * Destination health (issue #33): the checker every instance runs (HEALTH_CHECKS=off stops it here), with a
 * fetcher of its own (the SSRF guard; HEALTH_ALLOW_PRIVATE_TARGETS=1 for tests and LANs) and the
 * per-platform "gone" signals, validated now so that a bad row stops the start, not a check.
 */
export function composeHealth(parts: {
  config: Config;
  repo: HealthRepo;
  linkRepo: LinkRepo;
  links: Pick<LinkService, 'present'>;
  events: EventOutbox;
  cache: { invalidate(host: string, slug: string): void };
  logger: Logger;
  clock: () => number;
  /** The mailer of the daily digest (none leaves without SMTP_URL). */
  mailer: Mailer;
  /** ANALYTICS_URL's store: whether a link was visited is asked there, not of the main database's rollups. */
  analytics?: { reads: VisitReads; db: Parameters<typeof visitedSinceIn>[0] };
}) {
  const { config, linkRepo, links } = parts;
  const repo: HealthRepo = parts.analytics
    ? { ...parts.repo, visitedSince: visitedSinceIn(parts.analytics.db, parts.analytics.reads) }
    : parts.repo;
  const fetcher = createGuardedFetcher({
    allowPrivate: config.allowPrivateHealthTargets,
    timeoutMs: CHECK_TIMEOUT_MS,
    keepAlive: false,
  });
  const digest = createHealthDigest({
    repo,
    mailer: parts.mailer,
    baseUrl: config.baseUrl,
    now: parts.clock,
  });
  const checker = createHealthChecker({
    repo,
    fetcher,
    signals: validateGoneSignals(GONE_SIGNALS),
    now: parts.clock,
    token: randomUUID,
    // The event carries the link as the API shows it, with the health the check just wrote.
    describe: async (link, health) => {
      const record = await linkRepo.find(link.orgId, link.id);
      const tier = isTier(link.tier) ? link.tier : 'sidekick';
      return (
        record &&
        links.present({ orgId: link.orgId, tier, features: featuresOf(tier) }, { ...record, health })
      );
    },
    events: parts.events,
    invalidate: (host, slug) => parts.cache.invalidate(host, slug),
    afterPass: () => digest.maybeRun(),
    onError: (error) => {
      // An outage is logged once by the pool's health tracker.
      if (!isConnectionError(error)) parts.logger.error({ err: error }, 'destination check failed');
    },
  });
  return {
    start: () => {
      if (config.healthChecks) checker.start();
    },
    stop: async () => {
      await checker.stop();
      await fetcher.close();
    },
    runNow: () => checker.runNow(),
    /** The daily digest now, whenever it last looked (tests). */
    digestNow: () => digest.run(),
  };
}
