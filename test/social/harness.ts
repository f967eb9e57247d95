import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type InjectOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { appError } from '../../src/errors.js';
import { hostedErrorHandler } from '../../src/http/errors.js';
import { createLinkRepo } from '../../src/links/repo.js';
import { createLinkService, type LinkService } from '../../src/links/service.js';
import { createSocialAccountService } from '../../src/social/accounts.js';
import { createAutomationService } from '../../src/social/automations.js';
import { redirectUriOf, type SocialDb, type SocialDeps, socialDb } from '../../src/social/deps.js';
import { createSocialIntake } from '../../src/social/intake.js';
import { createRefreshSweep } from '../../src/social/refresh.js';
import { socialRoutes } from '../../src/social/routes.js';
import { socialInternalRoutes, socialPublicRoutes } from '../../src/social/webhook-routes.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import type { StoreKind } from '../helpers/stores.js';

/**
 * The social plugins on a small Fastify app, on the same store as a full hosted service (for links and
 * redirects), talking to the fake provider on loopback. A test header stands in for the session hook.
 */

export const CRON_SECRET = 'cron-secret-for-tests';
export const VERIFY_TOKEN = 'verify-token-for-tests';

export interface SocialHarness {
  app: FastifyInstance;
  hosted: HostedHarness;
  fake: FakeSocialProvider;
  deps: SocialDeps;
  /** The social tables, typed, for tests that arrange rows directly. */
  db: Kysely<SocialDb>;
  intake: ReturnType<typeof createSocialIntake>;
  sweep: ReturnType<typeof createRefreshSweep>;
  webhookUrl: string;
  org(tier: Tier): Promise<{ orgId: string; apiKey: string; ctx: OrgContext }>;
  as(orgId: string | null, options: InjectOptions): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
  /** Changes the plan, as the session would see it on the next call. */
  setTier(orgId: string, tier: Tier): Promise<void>;
  /** Moves our clock (the fake's is moved with fake.advance). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startSocial(
  kind: StoreKind,
  options: { flagsOff?: string[]; provisioned?: boolean; cron?: boolean; verifyToken?: string } = {},
): Promise<SocialHarness> {
  const fake = await new FakeSocialProvider().start();
  const hosted = await startHosted(kind);
  const { store } = hosted.testStore;
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const links: LinkService = createLinkService({
    repo: createLinkRepo(store),
    table: createPlatformTable(),
    baseUrl: BASE_URL,
    now,
    uuid: randomUUID,
    randomBytes: (size) => randomBytes(size),
    invalidate: () => {},
    events: { emitIn: async () => 0, nudge: () => {} },
    reapplyLinkCap: async () => {},
  });
  const provisioned = options.provisioned ?? true;
  const deps: SocialDeps = {
    store,
    social: {
      appId: provisioned ? fake.appId : undefined,
      appSecret: provisioned ? fake.appSecret : undefined,
      vaultKey: provisioned ? randomBytes(32).toString('base64') : undefined,
      verifyToken: 'verifyToken' in options ? options.verifyToken : VERIFY_TOKEN,
      appMode: 'development',
      authorizeBase: fake.origin,
      oauthBase: fake.origin,
      apiBase: fake.origin,
    },
    flagsOff: new Set(options.flagsOff ?? []),
    baseUrl: BASE_URL,
    stateSecret: 'state-secret-for-tests',
    links,
    now,
    uuid: randomUUID,
    linkStats: async () => ({ clicks: 0, opened: 0, appOpenRate: null }),
  };
  const intake = createSocialIntake(deps);
  const sweep = createRefreshSweep(deps);
  const orgs = new Map<string, OrgContext>();

  const app = Fastify({
    loggerInstance: pino({ level: 'silent' }) as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(hostedErrorHandler);
  app.decorateRequest('org', null);
  await app.register(
    async (api) => {
      api.addHook('onRequest', async (request) => {
        const ctx = orgs.get(String(request.headers['x-test-org'] ?? ''));
        if (!ctx) throw appError('unauthenticated');
        request.org = ctx;
      });
      await api.register(socialRoutes, {
        accounts: createSocialAccountService(deps),
        automations: createAutomationService(deps),
      });
    },
    { prefix: '/api' },
  );
  await app.register(socialPublicRoutes, {
    intake,
    appSecret: deps.social.appSecret,
    verifyToken: deps.social.verifyToken,
  });
  await app.register(socialInternalRoutes, {
    cronSecret: options.cron === false ? undefined : CRON_SECRET,
    sweep,
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });

  return {
    app,
    hosted,
    fake,
    deps,
    db: socialDb(store),
    intake,
    sweep,
    webhookUrl: `${address}/api/public/social/webhook`,
    async org(tier) {
      const { orgId, apiKey } = await hosted.org(tier);
      const ctx = { orgId, tier, features: featuresOf(tier) };
      orgs.set(orgId, ctx);
      return { orgId, apiKey, ctx };
    },
    as(orgId, inject) {
      return app.inject({
        ...inject,
        headers: { ...(inject.headers ?? {}), ...(orgId ? { 'x-test-org': orgId } : {}) },
      });
    },
    async setTier(orgId, tier) {
      await hosted.accounts.setTier(orgId, tier);
      orgs.set(orgId, { orgId, tier, features: featuresOf(tier) });
    },
    advance(ms) {
      offset += ms;
    },
    async close() {
      await app.close();
      await fake.stop();
      await hosted.close();
    },
  };
}

export { redirectUriOf };
