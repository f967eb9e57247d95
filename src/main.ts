import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createPasswordAttempts } from './accounts/password-attempts.js';
import { verifyPassword } from './accounts/secrets.js';
import type { ClickBufferStats } from './analytics/click-buffer.js';
import { writerThreadMemory } from './analytics/click-thread.js';
import { createAuditRepo } from './audit/repo.js';
import { createAuditLog } from './audit/service.js';
import { createCreatorStats } from './bio/analytics-stats.js';
import { createBioRepo } from './bio/repo.js';
import { createBioService } from './bio/service.js';
import { createSmtpTransport } from './broadcasts/worker.js';
import { composeAnalytics } from './compose-analytics.js';
import { composeAudience } from './compose-audience.js';
import { composeSocial } from './compose-social.js';
import { composeTeams } from './compose-teams.js';
import type { Config } from './config.js';
import { createVisitorClassifier } from './core/visitor.js';
import { createTxtLookup } from './domains/dns-txt.js';
import { createDomainService } from './domains/service.js';
import { loadEscapeMatrix } from './escape-matrix.js';
import { createFolderService } from './folders/folders.js';
import { defaultDashboardDir, loadDashboardAssets } from './http/dashboard.js';
import type { RateLimitMode } from './http/fallback-rate-limit.js';
import { buildHostedApp } from './http/hosted-app.js';
import { createLimits } from './http/limits.js';
import { createMetrics } from './http/metrics.js';
import { keysHeld } from './http/rate-limit.js';
import { composeImports } from './imports/compose.js';
import { composeLinkExpiry } from './links/expiry.js';
import { createPreviewService } from './links/preview.js';
import { createLinkRepo } from './links/repo.js';
import { createLinkService } from './links/service.js';
import { createMediaKitService } from './mediakit/service.js';
import { createGuardedFetcher } from './net/guarded-fetch.js';
import { scrapePreview } from './net/open-graph.js';
import { createPixelService } from './pixels/pixels.js';
import { loadPlatformTable } from './platform-table.js';
import { createReceiptService, loadReceiptKey } from './receipts/receipts.js';
import { createEscapeChooser } from './redirect/escape-choice.js';
import type { HostedRedirectDeps } from './redirect/hosted-routes.js';
import { createHostedLinkCache } from './redirect/link-cache.js';
import type { LinkLoaderDeps } from './redirect/link-loader.js';
import { createNonceSource } from './redirect/nonce.js';
import { createPasswordCookies } from './redirect/password-gate.js';
import { createVisitResponder } from './redirect/respond.js';
import { resolveSessionSecret } from './session-secret.js';
import { createStatsRepo } from './stats/repo.js';
import { createPublicStatsService } from './stats/service.js';
import type { Store } from './store/database.js';
import { logDbHealth } from './store/db-health.js';
import { recordRedisInvalidation } from './store/deployment-facts.js';
import { pingStore } from './store/health.js';
import { openRedisClients } from './store/redis-clients.js';
import type { RedisHealth } from './store/redis-health.js';
import type { WebhookEvent } from './webhooks/schema.js';
import { createSecretBox } from './webhooks/secret-box.js';
import { createWebhookService, type EventOutbox } from './webhooks/service.js';
import { createDeliveryWorker } from './webhooks/worker.js';

/**
 * The composition root: config is parsed once here, every dependency is made here and handed down.
 * Nothing below this file reads the environment or holds module-level state.
 */

const LINK_CACHE_SIZE = 50_000;
const HOSTED_CACHE_TTL_MS = 60_000;

export interface Composed {
  app: FastifyInstance;
  /** The click sink's depth and spill (for /metrics); the database's state is `store.health`. */
  clickStats?(): ClickBufferStats;
  /** One pass of the link.expired sweep now (hosted; it also runs every 20 s). */
  sweepExpiry?(): Promise<void>;
  /** Closes the app and whatever the composition opened besides the store (Redis clients). */
  close(): Promise<void>;
  /** With REDIS_URL: whether Redis is reached now and which rate limit decides (for /health, /metrics). */
  redis?: { health: RedisHealth; rateLimitMode(): RateLimitMode };
}

export { composeEngine } from './compose-engine.js';
export { createLogger } from './logger.js';

export interface ComposeOptions {
  /**
   * Write clicks on a thread of their own (the running server; see clickSink). Off by default, so that
   * tests composing the app in-process get the in-process buffer.
   */
  clickThread?: boolean;
}

/** Builds the hosted service on an open store. */
export async function composeHosted(
  config: Config,
  store: Store,
  logger: Logger,
  options: ComposeOptions = {},
): Promise<Composed> {
  const table = loadPlatformTable(config.platformsFile);
  const escapeMatrix = loadEscapeMatrix(config.escapeMatrixFile);
  const sessionSecret = resolveSessionSecret(config);
  logDbHealth(store.health, logger);
  const redis = config.redisUrl ? await openRedisClients(config.redisUrl, logger) : undefined;
  // The CLI reads this: its changes must then reach every instance through Redis (`org purge`).
  if (redis) await recordRedisInvalidation(store, logger);
  const limits = createLimits(redis && { publisher: redis.publisher, up: () => redis.health.up });

  // Every fetch of a user-given URL (webhook deliveries, preview scrapes) goes through this one guard.
  const fetcher = createGuardedFetcher({ allowPrivate: config.allowPrivateWebhookTargets });
  const secretBox = createSecretBox({ current: sessionSecret });
  // Every change by a person or a key writes its audit row in the change's transaction.
  const audit = createAuditLog({ repo: createAuditRepo(store), now: () => new Date() });
  const webhooks = createWebhookService({
    store,
    fetcher,
    secretBox,
    now: () => new Date(),
    uuid: randomUUID,
    allowPrivate: config.allowPrivateWebhookTargets,
    audit,
  });
  const deliveries = createDeliveryWorker({ store, fetcher, secretBox, now: () => new Date(), logger });
  // Link and contact events are queued in the transaction of their change (the outbox, src/webhooks).
  const events: EventOutbox = { emitIn: webhooks.emitIn, nudge: () => deliveries.nudge() };
  // The app.* outcome events still queue after their write; a webhook problem never fails that call.
  const emitEvent = async (orgId: string, event: WebhookEvent, data: unknown): Promise<void> => {
    try {
      if ((await webhooks.emit(orgId, event, data)) > 0) deliveries.nudge();
    } catch (error) {
      logger.error({ err: error, event }, 'webhook event not queued');
    }
  };

  // Without SMTP_URL there is no mail worker: broadcasts answer 503 not_provisioned, invites are logged.
  const mailTransport = config.smtpUrl ? createSmtpTransport(config.smtpUrl) : null;
  const mailFrom = config.mailFrom ?? `linkhop <no-reply@${new URL(config.baseUrl).hostname}>`;
  const crowd = composeAudience({ config, store, logger, events, audit, mailTransport, mailFrom });

  const linkRepo = createLinkRepo(store);
  const domains = createDomainService({
    store,
    baseUrl: config.baseUrl,
    lookupTxt: createTxtLookup(config.dnsResolver),
    now: () => new Date(),
    uuid: randomUUID,
    randomToken: () => randomBytes(16).toString('hex'),
    audit,
  });
  const customHosts = async () => [...(await domains.verifiedHosts()), ...(await linkRepo.hostsInUse())];
  const cache = await createHostedLinkCache({
    capacity: LINK_CACHE_SIZE,
    ttlMs: HOSTED_CACHE_TTL_MS,
    // Verified domains are the custom hosts: any other Host header gets the default host's links. The
    // hostnames links already use are added so no link ever stops redirecting (a domain removed while a
    // link was being created on it, a row edited by hand). Read again after a Redis outage.
    customHosts: await customHosts(),
    loadCustomHosts: customHosts,
    ...(redis ? { redis: { publisher: redis.publisher, subscriber: redis.subscriber } } : {}),
  });
  const people = composeTeams({ config, store, audit, logger, limits, cache, mailTransport, mailFrom });
  const { accounts } = people;
  const links = createLinkService({
    repo: linkRepo,
    table,
    baseUrl: config.baseUrl,
    now: () => new Date(),
    uuid: randomUUID,
    randomBytes: (size) => randomBytes(size),
    invalidate: (host, slug) => cache.invalidate(host, slug),
    events,
    reapplyLinkCap: async (ctx) => {
      await accounts.reapplyLinkCap(ctx.orgId, ctx.tier);
    },
    audit,
  });
  // Campaign end dates and click limits (issue #20): the click counter and the link.expired sweep.
  const linkExpiry = composeLinkExpiry({ store, linkRepo, links, events, cache, logger });
  const previews = createPreviewService({
    store,
    links,
    scrape: (url) => scrapePreview(fetcher, url),
    now: () => new Date(),
    onChange: (link) => cache.invalidate(link.hostname ?? '', link.slug),
    audit,
  });
  const imports = composeImports({
    store,
    accounts,
    links,
    previews,
    domains,
    secretBox,
    logger,
    config,
    audit,
  });
  const classify = createVisitorClassifier();
  const nonce = createNonceSource();
  const { clicks, tapTokens, analytics, bandit, ...tracking } = composeAnalytics({
    config,
    store,
    logger,
    clickThread: options.clickThread === true,
    sessionSecret,
    ...(redis ? { redis: redis.publisher } : {}),
    links,
    events,
    emitEvent,
  });
  const creatorStats = createCreatorStats({ analytics, store });
  const bioRepo = createBioRepo(store);
  const bio = createBioService({
    repo: bioRepo,
    stats: creatorStats,
    baseUrl: config.baseUrl,
    flagsOff: config.flagsOff,
    now: () => new Date(),
    uuid: randomUUID,
    audit,
  });
  const mediaKit = createMediaKitService({
    repo: bioRepo,
    bio,
    stats: creatorStats,
    flagsOff: config.flagsOff,
    now: () => new Date(),
    audit,
  });
  const social = composeSocial({ config, store, logger, audit, links, analytics, sessionSecret });
  const redisUp = redis && (() => redis.health.up);
  const respondToVisit = createVisitResponder({
    classify,
    nonce,
    redirectStatus: 302,
    redirectHeaders: { 'cache-control': 'private, max-age=0' },
    chooseFor: createEscapeChooser(bandit),
  });
  const metrics = createMetrics({
    clicks: () => clicks.stats(),
    dbUp: () => store.health.up,
    ...(redisUp ? { redisUp } : {}),
    outboxDepth: () => deliveries.depth(),
    threads: async () => ({ 'click-writer': await writerThreadMemory(clicks) }),
    caches: () => ({
      links: { entries: cache.size() },
      compiled_pages: respondToVisit.pages(),
      ua_classifier: { entries: classify.entries() },
      rate_limits: { entries: keysHeld(Object.values(limits)) },
    }),
  });

  // The redirect routes hand these deps to their link loader, which compiles links with the escape matrix.
  const redirectDeps: HostedRedirectDeps & Pick<LinkLoaderDeps, 'escapeMatrix'> = {
    links: linkRepo,
    table,
    classify,
    respondToVisit,
    cache,
    geoHeader: config.geoHeader,
    secureCookies: config.baseUrl.startsWith('https://'),
    passwordCookies: createPasswordCookies(sessionSecret),
    verifyPassword,
    passwordAttempts: limits.password,
    passwordFailures: limits.passwordFailures,
    nonce,
    baseUrl: config.baseUrl,
    defaultHost: new URL(config.baseUrl).host,
    flagsOff: config.flagsOff,
    analytics: config.analytics
      ? {
          record: (click) => clicks.record(click),
          tapPrefix: (constant) => tapTokens.prefix(constant),
          issueTap: (prefix, visit) => tapTokens.issueWith(prefix, visit),
          newTapId: randomUUID,
        }
      : null,
    now: Date.now,
    random: Math.random,
    escapeMatrix,
    expiry: linkExpiry,
  };
  const app = await buildHostedApp({
    web: loadDashboardAssets(config.dashboardDir ?? defaultDashboardDir()),
    logger,
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
    ping: () => pingStore(store),
    metrics,
    ...(redisUp ? { redisHealth: { up: redisUp, rateLimitMode: () => limits.mode() } } : {}),
    v1Auth: {
      authenticate: (authorization) => accounts.authenticateApiKey(authorization),
      limiter: limits.v1,
    },
    dashboard: {
      accounts,
      secureCookies: config.baseUrl.startsWith('https://'),
      signup: people.signup,
      signupAttempts: limits.signup,
      passwordAttempts: createPasswordAttempts({
        perAddress: limits.login,
        perAccount: limits.accountLoginFailures,
      }),
      keyCreations: limits.keyCreations,
      inviteAccepts: limits.inviteAccepts,
    },
    teams: people.teams,
    links,
    folders: createFolderService({ store, now: () => new Date(), uuid: randomUUID, audit }),
    domains,
    pixels: createPixelService({
      store,
      now: () => new Date(),
      uuid: randomUUID,
      invalidateOrganization: (orgId) => cache.invalidateOrganization(orgId),
      audit,
    }),
    receipts: createReceiptService({
      links,
      privateKey: await loadReceiptKey(store, config.receiptSigningKey, () => new Date()),
      now: () => new Date(),
    }),
    webhooks,
    analytics,
    publicStats: createPublicStatsService({ repo: createStatsRepo(store), analytics }),
    bio,
    mediaKit,
    social,
    audience: crowd.audience,
    segments: crowd.segments,
    broadcasts: crowd.broadcasts,
    unsubscribe: crowd.unsubscribe,
    captureLimiter: limits.capture,
    previews,
    imports: imports.service,
    redirect: redirectDeps,
  });
  tracking.start();
  deliveries.start();
  crowd.start();
  linkExpiry.start();
  return {
    app,
    clickStats: () => clicks.stats(),
    sweepExpiry: () => linkExpiry.sweep(),
    ...(redis ? { redis: { health: redis.health, rateLimitMode: () => limits.mode() } } : {}),
    async close() {
      await app.close();
      await linkExpiry.stop();
      await social.intake.drain();
      await tracking.stop();
      // Pending deliveries stay in the outbox; the next worker, here or on another instance, sends them.
      await deliveries.stop();
      await crowd.stop();
      await imports.close();
      await fetcher.close();
      await cache.close();
      await redis?.close();
    },
  };
}
