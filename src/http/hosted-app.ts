import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { publicAccountRoutes, sessionAccountRoutes } from '../accounts/account-routes.js';
import { type DashboardAccountDeps, dashboardAccountRoutes } from '../accounts/dashboard-routes.js';
import type { EraseService } from '../accounts/erase.js';
import { keyRoutes } from '../accounts/key-routes.js';
import type { PasswordService } from '../accounts/passwords.js';
import { meRoutes } from '../accounts/routes.js';
import { analyticsRoutes, dashboardAnalyticsRoutes, tapRoutes } from '../analytics/routes.js';
import type { AnalyticsService } from '../analytics/service.js';
import { audienceRoutes, captureRoutes } from '../audience/routes.js';
import type { AudienceService } from '../audience/service.js';
import { auditRoutes } from '../audit/routes.js';
import type { AuditLog } from '../audit/service.js';
import { bioPageRoutes, bioRoutes, publicBioRoutes } from '../bio/routes.js';
import type { BioService } from '../bio/service.js';
import { broadcastRoutes } from '../broadcasts/routes.js';
import { type SegmentService, segmentRoutes } from '../broadcasts/segments.js';
import type { BroadcastService } from '../broadcasts/service.js';
import { type UnsubscribeService, unsubscribeRoutes } from '../broadcasts/unsubscribe.js';
import type { TrustProxy } from '../config.js';
import { domainRoutes } from '../domains/routes.js';
import type { DomainService } from '../domains/service.js';
import { appError } from '../errors.js';
import { type FolderService, folderRoutes } from '../folders/folders.js';
import { importRoutes } from '../imports/routes.js';
import type { ImportService } from '../imports/service.js';
import { type PreviewService, previewRoutes } from '../links/preview.js';
import { qrRoutes } from '../links/qr.js';
import { linkRoutes } from '../links/routes.js';
import type { LinkService } from '../links/service.js';
import { mediaKitPageRoutes, mediaKitRoutes, publicMediaKitRoutes } from '../mediakit/routes.js';
import type { MediaKitService } from '../mediakit/service.js';
import type { InviteService } from '../members/invites.js';
import { memberRoutes } from '../members/routes.js';
import type { MemberService } from '../members/service.js';
import { type PixelService, pixelRoutes } from '../pixels/pixels.js';
import { type ReceiptService, receiptKeyRoutes, receiptRoutes } from '../receipts/receipts.js';
import { serverWithFastPath } from '../redirect/fast-path-server.js';
import {
  createHostedFastPath,
  type HostedRedirectDeps,
  hostedRedirectRoutes,
} from '../redirect/hosted-routes.js';
import type { SocialAccountService } from '../social/accounts.js';
import type { AutomationService } from '../social/automations.js';
import type { SocialIntake } from '../social/intake.js';
import type { SweepCounts } from '../social/refresh.js';
import { socialRoutes } from '../social/routes.js';
import { socialInternalRoutes, socialPublicRoutes } from '../social/webhook-routes.js';
import { linkListStatsRoutes, publicStatsApiRoutes, publicStatsPageRoutes } from '../stats/routes.js';
import type { PublicStatsService } from '../stats/service.js';
import { webhookRoutes } from '../webhooks/routes.js';
import type { WebhookService } from '../webhooks/service.js';
import { collectRoutes } from './authorize.js';
import { type DashboardAssets, dashboardRoutes } from './dashboard.js';
import { registerEdgeTextGuard } from './edge-text.js';
import { hostedErrorHandler, sendError } from './errors.js';
import { type HealthDeps, healthRoutes } from './health.js';
import { sendNotFoundPage } from './html.js';
import { requestLogController } from './logging.js';
import type { Metrics } from './metrics.js';
import { hostedOpenApiOptions } from './openapi.js';
import type { RateLimiter } from './rate-limit.js';
import { registerCsrfGuard, requireSession } from './session-auth.js';
import { registerV1Auth, type V1AuthDeps } from './v1-auth.js';

export interface HostedAppDeps {
  logger: FastifyBaseLogger;
  baseUrl: string;
  /** TRUST_PROXY: whose X-Forwarded-For sets request.ip, which every per-address limit keys on. */
  trustProxy: TrustProxy;
  ping: () => Promise<void>;
  /** Redis's state for /health, when REDIS_URL is set. */
  redisHealth?: HealthDeps['redis'];
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
export const HSTS = 'max-age=31536000';

/**
 * The hosted service's HTTP app. Each domain registers its own encapsulated plugin here, in an order
 * read top to bottom; the /v1 scope carries the API-key hook, the redirect scope carries none.
 */
export async function buildHostedApp(deps: HostedAppDeps): Promise<FastifyInstance> {
  const app = Fastify({
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
  });
  const metrics = deps.metrics;
  if (metrics) {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.countRequest(route, reply.statusCode);
      if (route === SLUG_ROUTE && request.method === 'GET') metrics.observeRedirect(reply.elapsedTime / 1000);
    });
  }

  const statsDeps = {
    stats: deps.publicStats,
    lookupHost: (host: string | undefined) => deps.redirect.cache.lookupHost(host),
    baseUrl: deps.baseUrl,
    nonce: deps.redirect.nonce,
  };
  const keyDeps = { accounts: deps.dashboard.accounts, keyCreations: deps.dashboard.keyCreations };
  const teamDeps = { members: deps.teams.members, invites: deps.teams.invites };
  const accountDeps = {
    ...deps.teams,
    accounts: deps.dashboard.accounts,
    secureCookies: deps.dashboard.secureCookies,
    resetAttempts: deps.dashboard.signupAttempts,
    inviteAccepts: deps.dashboard.inviteAccepts,
    passwordAttempts: deps.dashboard.passwordAttempts,
  };
  await app.register(
    async (v1) => {
      registerV1Auth(v1, deps.v1Auth);
      await v1.register(meRoutes);
      await v1.register(linkRoutes, { links: deps.links });
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
      await v1.register(keyRoutes, keyDeps);
      await v1.register(memberRoutes, teamDeps);
      await v1.register(auditRoutes, { audit: deps.teams.audit });
    },
    { prefix: '/v1' },
  );

  await app.register(
    async (api) => {
      registerCsrfGuard(api, deps.baseUrl);
      await api.register(dashboardAccountRoutes, deps.dashboard);
      await api.register(publicAccountRoutes, accountDeps);
      await api.register(publicBioRoutes, { bio: deps.bio });
      await api.register(publicMediaKitRoutes, { mediaKit: deps.mediaKit });
      await api.register(publicStatsApiRoutes, statsDeps);
      await api.register(async (authed) => {
        authed.addHook('onRequest', requireSession(deps.dashboard.accounts));
        await authed.register(sessionAccountRoutes, accountDeps);
        await authed.register(keyRoutes, { ...keyDeps, operationPrefix: 'dashboard' });
        await authed.register(memberRoutes, { ...teamDeps, operationPrefix: 'dashboard' });
        await authed.register(auditRoutes, { audit: deps.teams.audit, operationPrefix: 'dashboard' });
        await authed.register(linkRoutes, { links: deps.links, operationPrefix: 'dashboard' });
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
    },
    { prefix: '/api' },
  );

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

  await app.register(bioPageRoutes, { bio: deps.bio, nonce: deps.redirect.nonce, baseUrl: deps.baseUrl });
  await app.register(mediaKitPageRoutes, {
    mediaKit: deps.mediaKit,
    nonce: deps.redirect.nonce,
    baseUrl: deps.baseUrl,
  });
  await app.register(publicStatsPageRoutes, statsDeps);
  await app.register(receiptKeyRoutes, { receipts: deps.receipts });
  await app.register(dashboardRoutes, { assets: deps.web });
  await app.register(hostedRedirectRoutes, {
    ...deps.redirect,
    ...(metrics
      ? {
          unclaimed: new Map([
            [
              'metrics',
              async (reply: FastifyReply) =>
                reply
                  .header('content-type', metrics.contentType)
                  .header('cache-control', 'no-store')
                  .send(await metrics.render()),
            ],
          ]),
        }
      : {}),
  });
  return app;
}
