import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { type StoredClick, unpackBlock } from '../../src/analytics/click-blocks.js';
import { analyticsRoutes, dashboardAnalyticsRoutes, tapRoutes } from '../../src/analytics/routes.js';
import {
  type AnalyticsService,
  type AppEvent,
  createAnalyticsService,
  type TapEventData,
} from '../../src/analytics/service.js';
import { type ClickInput, createClickBuffer } from '../../src/analytics/write/click-buffer.js';
import { createTapTokens, type TapTokens } from '../../src/analytics/write/tap-tokens.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { hostedErrorHandler } from '../../src/http/errors.js';
import { createLinkRepo } from '../../src/links/repo.js';
import { createLinkService, type LinkService } from '../../src/links/service.js';
import type { Store } from '../../src/store/database.js';
import { up } from '../../src/store/migrations/008-analytics.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, isTier, type Tier } from '../../src/tenancy/plans.js';
import { makeOrg as makeOrgRow } from '../helpers/org.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';

/** Shared set-up of the analytics suites: a store with 008 applied, organizations, links, a small app. */

export const SECRET = 'analytics-test-session-secret-0123456789';
/** 2025-03-15T12:00:00Z: every seeded click is placed relative to this instant. */
export const NOW = Date.UTC(2025, 2, 15, 12, 0, 0);
export const DAY = 86_400_000;
export const TODAY = Math.floor(NOW / DAY) * DAY;
export const silent = { warn: () => {}, error: () => {} };

/** A migrated store plus 008 (the lead registers it in migrations/index.ts; until then tests apply it). */
export async function analyticsStore(kind: StoreKind): Promise<TestStore> {
  const testStore = await kind.create();
  const registered = Object.keys(await migrationProvider.getMigrations()).some((name) =>
    name.startsWith('008'),
  );
  if (!registered) await up(testStore.store.db as unknown as Kysely<unknown>);
  return testStore;
}

/** A human visit of `link-1` at NOW, the fields a test does not care about left plain. */
export const clickInput = (over: Partial<ClickInput> = {}): ClickInput => ({
  linkId: 'link-1',
  orgId: 'org-1',
  at: NOW,
  bot: false,
  variant: null,
  routed: null,
  country: 'US',
  city: null,
  device: 'ios',
  sourceApp: null,
  referrerHost: null,
  platformKey: null,
  tapId: null,
  ...over,
});

/** Every raw click stored for the organization (bots included), unpacked from its blocks, with its link. */
export async function storedClicks(
  store: Store,
  orgId: string,
): Promise<(StoredClick & { linkId: string })[]> {
  const blocks = await store.db
    .selectFrom('click_blocks')
    .select(['id', 'link_id', 'first_at', 'data'])
    .where('org_id', '=', orgId)
    .orderBy('id')
    .execute();
  return blocks.flatMap((block) =>
    unpackBlock(Number(block.id), Number(block.first_at), block.data).map((click) => ({
      ...click,
      linkId: block.link_id,
    })),
  );
}

/** An organization made at the suite's fixed clock (NOW). */
export const makeOrg = (store: Store, tier: Tier = 'legend'): Promise<OrgContext> =>
  makeOrgRow(store, tier, { createdAt: new Date(NOW) });

export const ctxOf = (orgId: string, tier: Tier): OrgContext => ({ orgId, tier, features: featuresOf(tier) });

export function makeLinks(store: Store): LinkService {
  return createLinkService({
    repo: createLinkRepo(store),
    table: createPlatformTable(),
    baseUrl: 'https://lnk.example',
    now: () => new Date(NOW),
    uuid: randomUUID,
    randomBytes: (size) => randomBytes(size),
    invalidate: () => {},
    events: { emitIn: async () => 0, nudge: () => {} },
    reapplyLinkCap: async () => {},
  });
}

export interface Emitted {
  orgId: string;
  event: AppEvent;
  data: TapEventData;
}

export interface Harness {
  store: Store;
  links: LinkService;
  tapTokens: TapTokens;
  analytics: AnalyticsService;
  emitted: Emitted[];
  buffer: ReturnType<typeof createClickBuffer>;
}

export function makeHarness(store: Store, options: { analytics?: boolean; now?: number } = {}): Harness {
  const now = options.now ?? NOW;
  const links = makeLinks(store);
  const tapTokens = createTapTokens({ secret: SECRET, now: () => now });
  const emitted: Emitted[] = [];
  const analytics = createAnalyticsService({
    store,
    analytics: options.analytics ?? true,
    links,
    tapTokens,
    emitEvent: async (orgId, event, data) => {
      emitted.push({ orgId, event, data });
    },
    now: () => new Date(now),
  });
  const buffer = createClickBuffer({ store, logger: silent });
  return { store, links, tapTokens, analytics, emitted, buffer };
}

/**
 * The routes as the lead mounts them: /v1 reads and /api twins behind a stand-in auth hook (the tier and org
 * come from test headers), the beacon at the root.
 */
export const operationIds: string[] = [];

export async function buildApp(analytics: AnalyticsService): Promise<FastifyInstance> {
  const app = Fastify();
  app.addHook('onRoute', (route) => {
    const id = (route.schema as { operationId?: string } | undefined)?.operationId;
    if (id && !operationIds.includes(id)) operationIds.push(id);
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(hostedErrorHandler);
  app.decorateRequest('org', null);
  const auth = async (request: { headers: Record<string, unknown>; org: OrgContext | null }) => {
    const tier = String(request.headers['x-tier'] ?? 'legend');
    request.org = ctxOf(String(request.headers['x-org']), isTier(tier) ? tier : 'sidekick');
  };
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', auth);
      await v1.register(analyticsRoutes, { analytics });
    },
    { prefix: '/v1' },
  );
  await app.register(
    async (api) => {
      api.addHook('onRequest', auth);
      await api.register(dashboardAnalyticsRoutes, { analytics });
    },
    { prefix: '/api' },
  );
  await app.register(tapRoutes, { analytics });
  await app.ready();
  return app;
}
