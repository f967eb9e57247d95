import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { publicAccountRoutes, sessionAccountRoutes } from './accounts/account-routes.js';
import { type DashboardAccountDeps, dashboardAccountRoutes } from './accounts/dashboard-routes.js';
import type { EraseService } from './accounts/erase.js';
import type { InviteService } from './accounts/invites.js';
import { keyRoutes } from './accounts/key-routes.js';
import { memberRoutes } from './accounts/member-routes.js';
import type { MemberService } from './accounts/members.js';
import { createPasswordAttempts } from './accounts/password-attempts.js';
import type { PasswordService } from './accounts/passwords.js';
import { meRoutes } from './accounts/routes.js';
import { analyticsRoutes, dashboardAnalyticsRoutes, tapRoutes } from './analytics/routes.js';
import type { AnalyticsService } from './analytics/service.js';
import type { ClickBufferStats } from './analytics/write/click-buffer.js';
import { audienceRoutes, captureRoutes } from './audience/routes.js';
import type { AudienceService } from './audience/service.js';
import { auditRoutes } from './audit/routes.js';
import type { AuditLog } from './audit/service.js';
import { bioPageRoutes, bioRoutes, publicBioRoutes } from './bio/routes.js';
import type { BioService } from './bio/service.js';
import { broadcastRoutes } from './broadcasts/routes.js';
import { type SegmentService, segmentRoutes } from './broadcasts/segments.js';
import type { BroadcastService } from './broadcasts/service.js';
import { type UnsubscribeService, unsubscribeRoutes } from './broadcasts/unsubscribe.js';
import { composeAnalytics, openClickhouseEngine } from './compose/analytics.js';
import { composeAudience, type MailWorkerOptions } from './compose/audience.js';
import { type BulkActions, composeBulkActions } from './compose/bulk-actions.js';
import { composeImports } from './compose/imports.js';
import type { Limits } from './compose/limits.js';
import { composeHosts, composeLinks, type Hosts } from './compose/links.js';
import { composeMetrics } from './compose/metrics.js';
import { composeOutbox, type Outbox } from './compose/outbox.js';
import { composePages } from './compose/pages.js';
import { composeRedirect } from './compose/redirect.js';
import { composeShared, type Shared } from './compose/shared.js';
import { composeSocial } from './compose/social.js';
import { composeSso, type Sso, ssoPasswordRefusal } from './compose/sso.js';
import { composeTeams } from './compose/teams.js';
import type { Config, TrustProxy } from './config.js';
import { domainRoutes } from './domains/routes.js';
import type { DomainService } from './domains/service.js';
import { appError } from './errors.js';
import { folderRoutes } from './folders/routes.js';
import type { FolderService } from './folders/service.js';
import { collectRoutes } from './http/authorize.js';
import {
  type DashboardAssets,
  dashboardRoutes,
  defaultDashboardDir,
  loadDashboardAssets,
} from './http/dashboard.js';
import { registerEdgeTextGuard } from './http/edge-text.js';
import { hostedErrorHandler, sendError } from './http/errors.js';
import type { RateLimitMode } from './http/fallback-rate-limit.js';
import { type HealthDeps, healthRoutes } from './http/health.js';
import { sendNotFoundPage } from './http/html.js';
import { requestLogController } from './http/logging.js';
import type { Metrics } from './http/metrics.js';
import { hostedOpenApiOptions } from './http/openapi.js';
import type { RateLimiter } from './http/rate-limit.js';
import { registerCsrfGuard, requireSession } from './http/session-auth.js';
import { registerV1Auth, type V1AuthDeps } from './http/v1-auth.js';
import { importRoutes } from './imports/routes.js';
import type { ImportService } from './imports/service.js';
import type { AbTests } from './links/ab.js';
import { abTestRoutes } from './links/ab-routes.js';
import { bulkActionRoutes } from './links/bulk-routes.js';
import { type PreviewService, previewRoutes } from './links/preview.js';
import { qrRoutes } from './links/qr.js';
import { linkRoutes } from './links/routes.js';
import type { LinkService } from './links/service.js';
import { createInnerPasses } from './mcp/inner-passes.js';
import { mcpRoutes } from './mcp/routes.js';
import { mediaKitPageRoutes, mediaKitRoutes, publicMediaKitRoutes } from './mediakit/routes.js';
import type { MediaKitService } from './mediakit/service.js';
import type { GuardedFetcher } from './net/guarded-fetch.js';
import { createSmtpTransport } from './net/mail.js';
import { pixelRoutes } from './pixels/routes.js';
import type { PixelService } from './pixels/service.js';
import { receiptKeyRoutes, receiptRoutes } from './receipts/routes.js';
import type { ReceiptService } from './receipts/service.js';
import type { FastPath } from './redirect/fast-path.js';
import { serverWithFastPath } from './redirect/fast-path-server.js';
import { hostedRedirectRoutes } from './redirect/hosted-routes.js';
import { createHostedFastPath, type HostedRedirectDeps } from './redirect/visit.js';
import type { SocialAccountService } from './social/accounts.js';
import type { AutomationService } from './social/automations.js';
import type { SocialDeps } from './social/deps.js';
import type { SocialIntake } from './social/intake.js';
import type { SweepCounts } from './social/refresh.js';
import { socialRoutes } from './social/routes.js';
import { socialInternalRoutes, socialPublicRoutes } from './social/webhook-routes.js';
import { ssoFlowRoutes } from './sso/flow-routes.js';
import { ssoConfigRoutes } from './sso/routes.js';
import type { SsoSettings } from './sso/settings.js';
import type { SsoSignIn } from './sso/sign-in.js';
import { linkListStatsRoutes, publicStatsApiRoutes, publicStatsPageRoutes } from './stats/routes.js';
import type { PublicStatsService } from './stats/service.js';
import type { Store } from './store/database.js';
import { pingStore } from './store/health.js';
import type { RedisHealth } from './store/redis-health.js';
import { webhookRoutes } from './webhooks/routes.js';
import type { WebhookService } from './webhooks/service.js';

export interface HostedAppDeps {
  logger: FastifyBaseLogger;
  baseUrl: string;
  /** TRUST_PROXY: whose X-Forwarded-For sets request.ip, which every per-address limit keys on. */
  trustProxy: TrustProxy;
  ping: () => Promise<void>;
  /** Redis's state for /health, when REDIS_URL is set. */
  redisHealth?: HealthDeps['redis'];
  /** ANALYTICS_URL's ClickHouse for /health, when it is set. */
  analyticsHealth?: HealthDeps['analytics'];
  metrics?: Metrics;
  v1Auth: V1AuthDeps;
  dashboard: DashboardAccountDeps;
  /** Teams (issue #20): members and invites, the audit log, passwords, account deletion. */
  teams: {
    members: MemberService;
    invites: InviteService;
    audit: AuditLog;
    passwords: PasswordService;
    erase: EraseService;
  };
  links: LinkService;
  /** Single sign-on (issue #34): owners' settings, the sign-in flow, and sign-ins started per address. */
  sso: { settings: SsoSettings; signIn: SsoSignIn; starts: RateLimiter };
  /** Bulk actions on links and the CSV export (issue #34). */
  bulkActions: { bulkActions: BulkActions['service']; exporter: BulkActions['exporter'] };
  /** A/B tests that conclude (issue #33): the readout and the promote. */
  abTests: AbTests;
  folders: FolderService;
  domains: DomainService;
  pixels: PixelService;
  receipts: ReceiptService;
  previews: PreviewService;
  imports: ImportService;
  webhooks: WebhookService;
  analytics: AnalyticsService;
  /** Public link stats (issue #20). */
  publicStats: PublicStatsService;
  bio: BioService;
  mediaKit: MediaKitService;
  social: {
    accounts: SocialAccountService;
    automations: AutomationService;
    intake: SocialIntake;
    sweep: () => Promise<SweepCounts>;
    appSecret: string | undefined;
    verifyToken: string | undefined;
    cronSecret: string | undefined;
  };
  audience: AudienceService;
  segments: SegmentService;
  broadcasts: BroadcastService;
  unsubscribe: UnsubscribeService;
  captureLimiter: RateLimiter;
  redirect: HostedRedirectDeps;
  /** The built web dashboard, served at `/`. */
  web: DashboardAssets;
}

export interface Composed {
  app: FastifyInstance;
  /** The click sink's depth and spill (for /metrics); the database's state is `store.health`. */
  clickStats?(): ClickBufferStats;
  /** One pass of the link.expired sweep now (hosted; it also runs every 20 s). */
  sweepExpiry?(): Promise<void>;
  /** Checks every destination due now (destination health; it also runs every 30 s). */
  checkDestinations?(): Promise<void>;
  /** One pass of the A/B auto-promote sweep now (hosted; it also runs every minute). */
  sweepAbTests?(): Promise<void>;
  /** The redirect's fast path as the server runs it in front of Fastify (tests drive it with raw requests). */
  fastPath?: FastPath;
  /**
   * Instagram comment-to-DM as composed (tests): its deps, from which a second instance's intake or sweep
   * is made on the same store, and `drain`, which waits until the intake has handled every delivery taken.
   */
  social?: { deps: SocialDeps; drain(): Promise<void> };
  /** The broadcast mail worker (with SMTP_URL): `drain` sends every queued recipient now (tests). */
  mail?: { drain(): Promise<void> };
  /** Closes the app and whatever the composition opened besides the store (Redis clients). */
  close(): Promise<void>;
  /** With REDIS_URL: whether Redis is reached now and which rate limit decides (for /health, /metrics). */
  redis?: { health: RedisHealth; rateLimitMode(): RateLimitMode };
}

export interface ComposeOptions {
  /**
   * Write clicks on a thread of their own (the running server; see clickSink). Off by default, so that
   * tests composing the app in-process get the in-process buffer.
   */
  clickThread?: boolean;
  /** The SSRF guard for user-given URLs, instead of one on the system's DNS (tests resolve names by hand). */
  fetcher?: GuardedFetcher;
  /**
   * The clock, in milliseconds since the epoch, that every service made here reads (stamps, expiries,
   * sessions, rate-limit windows, the redirect's schedules): the system clock unless a test brings one.
   */
  now?: () => number;
  /**
   * The broadcast mail worker as a test runs it: its batch size, or only when drained (`background:
   * false`, for a test that changes rows between queueing and sending). Production leaves it unset.
   */
  mailWorker?: MailWorkerOptions;
}

/** The redirect's route pattern, as Fastify and the metrics name it. */
const SLUG_ROUTE = '/:slug';

/**
 * /docs loads only swagger-ui's files and fetches its JSON: nothing third-party (its validator badge is
 * off by default), no framing, no inline script.
 */
const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; " +
  "frame-ancestors 'none'; img-src 'self' data:; object-src 'none'; script-src 'self'; " +
  "script-src-attr 'none'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/** One year, the value browsers' preload lists ask for; subdomains are the owner's business, not ours. */
const HSTS = 'max-age=31536000';

/**
 * The hosted service's composition root: config is parsed before this, the store opened; every service is
 * made here, through the groups of src/compose/, and handed down. Nothing below reads the environment or
 * holds module-level state. The engine has a root of its own (src/compose/engine.ts), so that it never
 * loads the hosted service's modules.
 */
export async function composeHosted(
  config: Config,
  store: Store,
  logger: Logger,
  options: ComposeOptions = {},
): Promise<Composed> {
  const shared = await composeShared(config, store, logger, {
    ...(options.fetcher ? { fetcher: options.fetcher } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const outbox = composeOutbox(config, store, logger, shared);
  const { secretBox, sessionSecret, redis, limits, now } = shared;
  const { audit, events } = outbox;
  const mail = mailSettings(config, options);
  const crowd = composeAudience({ config, store, logger, events, audit, ...mail, now });
  const hosts = await composeHosts(config, store, shared, outbox);
  // ANALYTICS_URL: opened without waiting on the server; erasure and destination health use it too.
  const clickhouse = openClickhouseEngine(config, store, logger);
  const people = composeTeams({
    ...{ config, store, audit, logger, limits, cache: hosts.cache, ...mail, now },
    passwordRefused: ssoPasswordRefusal(store),
    ...(clickhouse ? { eraseAnalytics: (orgId: string) => clickhouse.eraseOrganization(orgId) } : {}),
  });
  const { accounts } = people;
  const sso = composeSso({
    ...{ config, store, accounts: people.repo, secretBox, audit, clock: shared.clock, now },
    openSession: (userId, orgId) => accounts.openSession(userId, orgId),
  });
  const linking = await composeLinks({
    ...{ config, store, logger, shared, outbox, hosts, accounts, mail },
    ...(clickhouse ? { analytics: clickhouse.store } : {}),
  });
  const { links, linkExpiry, previews } = linking;
  const imports = composeImports({
    store,
    accounts,
    links,
    previews,
    domains: hosts.domains,
    secretBox,
    logger,
    config,
    audit,
    now,
  });
  const bulkActions = composeBulkActions({ store, links, linkRepo: hosts.linkRepo, accounts, logger, now });
  const { clicks, tapTokens, analytics, bandit, abTests, held, ...tracking } = composeAnalytics({
    config,
    store,
    logger,
    clickThread: options.clickThread === true,
    sessionSecret,
    ...(redis ? { redis: redis.publisher } : {}),
    links,
    events,
    abTesting: { linkRepo: hosts.linkRepo, table: shared.table, audit, cache: hosts.cache },
    emitEvent: outbox.emitEvent,
    clock: shared.clock,
    clickhouse,
  });
  const social = composeSocial({ config, store, logger, audit, links, analytics, sessionSecret, now });
  const redirect = composeRedirect({ config, shared, hosts, linkExpiry, clicks, tapTokens, bandit });
  const metrics = composeMetrics({ store, shared, outbox, hosts, clicks, redirect, held, clickhouse });
  const groups = { shared, outbox, crowd, hosts, people, linking, imports, analytics, social, redirect };
  const app = await buildHostedApp({
    ...hostedAppDeps(config, store, logger, metrics, { ...groups, abTests, bulkActions, sso }),
    ...(clickhouse ? { analyticsHealth: { ping: () => clickhouse.ping() } } : {}),
  });
  tracking.start();
  outbox.deliveries.start();
  crowd.start();
  linking.start();
  return {
    app,
    clickStats: () => clicks.stats(),
    fastPath: createHostedFastPath(redirect.deps),
    sweepExpiry: () => linkExpiry.sweep(),
    checkDestinations: () => linking.health.runNow(),
    sweepAbTests: () => abTests.sweep(),
    social: { deps: social.deps, drain: () => social.intake.drain() },
    mail: { drain: () => crowd.drain() },
    ...(redis ? { redis: { health: redis.health, rateLimitMode: () => limits.mode() } } : {}),
    // The app first (no new requests), then what writes in the background, then the connections.
    async close() {
      await app.close();
      await linking.stop();
      await social.intake.drain();
      await tracking.stop();
      // Pending deliveries stay in the outbox; the next worker, here or on another instance, sends them.
      await outbox.deliveries.stop();
      await crowd.stop();
      await imports.close();
      await bulkActions.close();
      await sso.close();
      await shared.fetcher.close();
      await hosts.cache.close();
      await redis?.close();
    },
  };
}

/** SMTP_URL's transport (none: no mail worker, broadcasts answer 503 not_provisioned, invites are logged). */
function mailSettings(config: Config, options: ComposeOptions) {
  const mailTransport = config.smtpUrl ? createSmtpTransport(config.smtpUrl) : null;
  const mailFrom = config.mailFrom ?? `linkhop <no-reply@${new URL(config.baseUrl).hostname}>`;
  return { mailTransport, mailFrom, mailWorker: options.mailWorker };
}

/** What the routes are handed, taken from the groups composeHosted made. */
function hostedAppDeps(
  config: Config,
  store: Store,
  logger: Logger,
  metrics: Metrics,
  groups: {
    shared: Shared;
    outbox: Outbox;
    crowd: ReturnType<typeof composeAudience>;
    hosts: Hosts;
    people: ReturnType<typeof composeTeams>;
    linking: Awaited<ReturnType<typeof composeLinks>>;
    imports: ReturnType<typeof composeImports>;
    bulkActions: BulkActions;
    analytics: AnalyticsService;
    abTests: AbTests;
    social: ReturnType<typeof composeSocial>;
    redirect: ReturnType<typeof composeRedirect>;
    sso: Sso;
  },
): HostedAppDeps {
  const { shared, outbox, crowd, hosts, people, linking, analytics } = groups;
  const { redis, limits } = shared;
  return {
    logger,
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
    ping: () => pingStore(store),
    ...(redis ? { redisHealth: { up: () => redis.health.up, rateLimitMode: () => limits.mode() } } : {}),
    metrics,
    v1Auth: {
      authenticate: (authorization) => people.accounts.authenticateApiKey(authorization),
      limiter: limits.v1,
    },
    dashboard: dashboardDeps(config, people, limits),
    teams: people.teams,
    links: linking.links,
    sso: { settings: groups.sso.settings, signIn: groups.sso.signIn, starts: limits.login },
    bulkActions: { bulkActions: groups.bulkActions.service, exporter: groups.bulkActions.exporter },
    abTests: groups.abTests,
    folders: linking.folders,
    domains: hosts.domains,
    pixels: linking.pixels,
    receipts: linking.receipts,
    previews: linking.previews,
    imports: groups.imports.service,
    webhooks: outbox.webhooks,
    analytics,
    ...composePages(config, store, analytics, outbox.audit, shared.now),
    social: groups.social,
    audience: crowd.audience,
    segments: crowd.segments,
    broadcasts: crowd.broadcasts,
    unsubscribe: crowd.unsubscribe,
    captureLimiter: limits.capture,
    redirect: groups.redirect.deps,
    web: loadDashboardAssets(config.dashboardDir ?? defaultDashboardDir()),
  };
}

/** The dashboard's session side: accounts, sign-up, and the limits on every password and invite check. */
function dashboardDeps(config: Config, people: ReturnType<typeof composeTeams>, limits: Limits) {
  return {
    accounts: people.accounts,
    secureCookies: config.baseUrl.startsWith('https://'),
    signup: people.signup,
    signupAttempts: limits.signup,
    passwordAttempts: createPasswordAttempts({
      perAddress: limits.login,
      perAccount: limits.accountLoginFailures,
    }),
    keyCreations: limits.keyCreations,
    inviteAccepts: limits.inviteAccepts,
  };
}

/**
 * The hosted service's HTTP app. Each domain registers its own encapsulated plugin, in an order read top
 * to bottom: the plumbing (errors, OpenAPI, health, metrics), the /v1 scope with the API-key hook, the
 * dashboard's /api scope behind the CSRF guard, the public pages, and last the redirect, which owns `/:slug`.
 */
export async function buildHostedApp(deps: HostedAppDeps): Promise<FastifyInstance> {
  const app = createHostedFastify(deps);
  await registerPlumbing(app, deps);
  await app.register(async (v1) => registerV1(v1, deps), { prefix: '/v1' });
  await app.register(async (api) => registerDashboardApi(api, deps), { prefix: '/api' });
  await registerPublicRoutes(app, deps);
  await app.register(hostedRedirectRoutes, {
    ...deps.redirect,
    ...(deps.metrics ? { unclaimed: new Map([['metrics', metricsPage(deps.metrics)]]) } : {}),
  });
  return app;
}

function createHostedFastify(deps: HostedAppDeps): FastifyInstance {
  return Fastify({
    loggerInstance: deps.logger,
    logController: requestLogController(deps.logger),
    // maxParamLength: a junk 101+ character handle or slug is a 404, not a 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    serverFactory: serverWithFastPath(createHostedFastPath(deps.redirect), {
      answered: (status, seconds) => {
        deps.metrics?.countRequest(SLUG_ROUTE, status);
        deps.metrics?.observeRedirect(seconds);
      },
      // The fast path's answers (redirects and escape pages, which Fastify's hooks never see) carry HSTS too.
      headers: deps.baseUrl.startsWith('https://') ? { 'strict-transport-security': HSTS } : {},
    }),
    bodyLimit: 1024 * 1024,
    // A hop count as proxy-addr reads one: the nearest `n` hops are proxies (Fastify's types omit numbers).
    trustProxy:
      typeof deps.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(deps.trustProxy)
        : deps.trustProxy,
  });
}

/** What every route relies on: the route catalogue, Zod, the error body, OpenAPI, /health and /metrics. */
async function registerPlumbing(app: FastifyInstance, deps: HostedAppDeps): Promise<void> {
  // First, so that every route registered below is in the catalogue the role test walks.
  collectRoutes(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(hostedErrorHandler);
  registerEdgeTextGuard(app);
  app.decorateRequest('org', null);
  app.decorateRequest('user', null);
  app.decorateRequest('session', null);
  app.setNotFoundHandler((request, reply) => {
    if (/^\/(api|v1|internal)(\/|$)/.test(request.url))
      return sendError(reply, appError('not_found', 'No such route'));
    return sendNotFoundPage(reply);
  });

  await app.register(swagger, hostedOpenApiOptions(deps.baseUrl));
  // Browsers that once reached us over https keep to it (RFC 6797); never sent over plain http.
  if (deps.baseUrl.startsWith('https://')) {
    app.addHook('onSend', async (_request, reply) => {
      reply.header('strict-transport-security', HSTS);
    });
  }
  // The API reference page: swagger-ui's own files only, its one inline style allowed by hash
  // (test/web/docs.test.ts fails on any CSP violation, so an upgrade that changes it is caught).
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, {
    ping: deps.ping,
    ...(deps.redisHealth ? { redis: deps.redisHealth } : {}),
    ...(deps.analyticsHealth ? { analytics: deps.analyticsHealth } : {}),
  });
  const metrics = deps.metrics;
  if (metrics) {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.countRequest(route, reply.statusCode);
      if (route === SLUG_ROUTE && request.method === 'GET') metrics.observeRedirect(reply.elapsedTime / 1000);
    });
  }
}

const keyDeps = (deps: HostedAppDeps) => ({
  accounts: deps.dashboard.accounts,
  keyCreations: deps.dashboard.keyCreations,
});
const teamDeps = (deps: HostedAppDeps) => ({ members: deps.teams.members, invites: deps.teams.invites });
const statsDeps = (deps: HostedAppDeps) => ({
  stats: deps.publicStats,
  lookupHost: (host: string | undefined) => deps.redirect.cache.lookupHost(host),
  baseUrl: deps.baseUrl,
  nonce: deps.redirect.nonce,
});

/** The public API: every route behind an API key (the hook answers 401/403/429 before any route runs). */
async function registerV1(v1: FastifyInstance, deps: HostedAppDeps): Promise<void> {
  // The MCP endpoint's tool calls are /v1 calls its own request already counted (src/mcp/inner-passes.ts).
  const passes = createInnerPasses();
  registerV1Auth(v1, { ...deps.v1Auth, alreadyCounted: passes.redeem });
  await v1.register(mcpRoutes, { passes, baseUrl: deps.baseUrl });
  await v1.register(meRoutes);
  await v1.register(linkRoutes, { links: deps.links });
  await v1.register(bulkActionRoutes, deps.bulkActions);
  await v1.register(abTestRoutes, { abTests: deps.abTests });
  await v1.register(linkListStatsRoutes, { stats: deps.publicStats });
  await v1.register(folderRoutes, { folders: deps.folders });
  await v1.register(domainRoutes, { domains: deps.domains });
  await v1.register(pixelRoutes, { pixels: deps.pixels });
  await v1.register(qrRoutes, { links: deps.links });
  await v1.register(previewRoutes, { previews: deps.previews });
  await v1.register(webhookRoutes, { webhooks: deps.webhooks });
  await v1.register(audienceRoutes, { audience: deps.audience });
  await v1.register(analyticsRoutes, { analytics: deps.analytics });
  await v1.register(bioRoutes, { bio: deps.bio });
  await v1.register(receiptRoutes, { receipts: deps.receipts });
  await v1.register(importRoutes, { imports: deps.imports });
  await v1.register(keyRoutes, keyDeps(deps));
  await v1.register(memberRoutes, teamDeps(deps));
  await v1.register(auditRoutes, { audit: deps.teams.audit });
  await v1.register(ssoConfigRoutes, { settings: deps.sso.settings });
}

/** The dashboard's API: the CSRF guard on all of it, a session on all but sign-up, log-in and public reads. */
async function registerDashboardApi(api: FastifyInstance, deps: HostedAppDeps): Promise<void> {
  const accountDeps = {
    ...deps.teams,
    accounts: deps.dashboard.accounts,
    secureCookies: deps.dashboard.secureCookies,
    resetAttempts: deps.dashboard.signupAttempts,
    inviteAccepts: deps.dashboard.inviteAccepts,
    passwordAttempts: deps.dashboard.passwordAttempts,
  };
  registerCsrfGuard(api, deps.baseUrl);
  await api.register(dashboardAccountRoutes, deps.dashboard);
  await api.register(publicAccountRoutes, accountDeps);
  await api.register(ssoFlowRoutes, { ...deps.sso, secureCookies: deps.dashboard.secureCookies });
  await api.register(publicBioRoutes, { bio: deps.bio });
  await api.register(publicMediaKitRoutes, { mediaKit: deps.mediaKit });
  await api.register(publicStatsApiRoutes, statsDeps(deps));
  await api.register(async (authed) => {
    authed.addHook('onRequest', requireSession(deps.dashboard.accounts));
    await authed.register(sessionAccountRoutes, accountDeps);
    await authed.register(keyRoutes, { ...keyDeps(deps), operationPrefix: 'dashboard' });
    await authed.register(memberRoutes, { ...teamDeps(deps), operationPrefix: 'dashboard' });
    await authed.register(auditRoutes, { audit: deps.teams.audit, operationPrefix: 'dashboard' });
    await authed.register(ssoConfigRoutes, { settings: deps.sso.settings, operationPrefix: 'dashboard' });
    await authed.register(linkRoutes, { links: deps.links, operationPrefix: 'dashboard' });
    await authed.register(bulkActionRoutes, { ...deps.bulkActions, operationPrefix: 'dashboard' });
    await authed.register(abTestRoutes, { abTests: deps.abTests, operationPrefix: 'dashboard' });
    await authed.register(linkListStatsRoutes, { stats: deps.publicStats, operationPrefix: 'dashboard' });
    await authed.register(qrRoutes, { links: deps.links, operationId: 'dashboardGetLinkQr' });
    await authed.register(previewRoutes, { previews: deps.previews, operationPrefix: 'dashboard' });
    await authed.register(folderRoutes, { folders: deps.folders, operationPrefix: 'dashboard' });
    await authed.register(domainRoutes, { domains: deps.domains, operationPrefix: 'dashboard' });
    await authed.register(pixelRoutes, { pixels: deps.pixels, operationPrefix: 'dashboard' });
    await authed.register(webhookRoutes, { webhooks: deps.webhooks, operationPrefix: 'dashboard' });
    await authed.register(audienceRoutes, { audience: deps.audience, dashboard: true });
    await authed.register(dashboardAnalyticsRoutes, { analytics: deps.analytics });
    await authed.register(bioRoutes, { bio: deps.bio, operationPrefix: 'dashboard' });
    await authed.register(mediaKitRoutes, { mediaKit: deps.mediaKit });
    await authed.register(importRoutes, { imports: deps.imports, operationPrefix: 'dashboard' });
    await authed.register(segmentRoutes, { segments: deps.segments });
    await authed.register(broadcastRoutes, { broadcasts: deps.broadcasts });
    await authed.register(socialRoutes, {
      accounts: deps.social.accounts,
      automations: deps.social.automations,
    });
  });
}

/** Routes with credentials of their own or none: forms, beacons, the provider's deliveries, public pages. */
async function registerPublicRoutes(app: FastifyInstance, deps: HostedAppDeps): Promise<void> {
  // Outside the CSRF guard on purpose: the capture form may post as a plain form, and mail clients POST
  // to /u/{token} (RFC 8058) from other sites.
  await app.register(captureRoutes, {
    audience: deps.audience,
    limiter: deps.captureLimiter,
    geoHeader: deps.redirect.geoHeader,
  });
  await app.register(unsubscribeRoutes, { unsubscribe: deps.unsubscribe });
  // The escape page's beacon: text/plain from any of our hosts, so outside the dashboard's CSRF guard.
  await app.register(tapRoutes, { analytics: deps.analytics });
  // The provider's deliveries and the cron sweep carry their own credentials (signature, x-cron-secret).
  await app.register(socialPublicRoutes, {
    intake: deps.social.intake,
    appSecret: deps.social.appSecret,
    verifyToken: deps.social.verifyToken,
  });
  await app.register(socialInternalRoutes, { cronSecret: deps.social.cronSecret, sweep: deps.social.sweep });
  const page = { nonce: deps.redirect.nonce, baseUrl: deps.baseUrl };
  await app.register(bioPageRoutes, { bio: deps.bio, ...page });
  await app.register(mediaKitPageRoutes, { mediaKit: deps.mediaKit, ...page });
  await app.register(publicStatsPageRoutes, statsDeps(deps));
  await app.register(receiptKeyRoutes, { receipts: deps.receipts });
  await app.register(dashboardRoutes, { assets: deps.web });
}

/** `/metrics` answers on the redirect's route, where no link claims the slug `metrics`. */
const metricsPage = (metrics: Metrics) => async (reply: FastifyReply) =>
  reply
    .header('content-type', metrics.contentType)
    .header('cache-control', 'no-store')
    .send(await metrics.render());
