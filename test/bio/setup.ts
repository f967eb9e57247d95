import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { createBioRepo } from '../../src/bio/repo.js';
import { bioPageRoutes, bioRoutes, publicBioRoutes } from '../../src/bio/routes.js';
import { type BioService, createBioService } from '../../src/bio/service.js';
import type { CreatorStatsSource, OrgSummary, OutcomeCounts } from '../../src/bio/stats-source.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { appError } from '../../src/errors.js';
import { hostedErrorHandler } from '../../src/http/errors.js';
import { createLinkRepo } from '../../src/links/repo.js';
import { createLinkService, type LinkService } from '../../src/links/service.js';
import { mediaKitPageRoutes, mediaKitRoutes, publicMediaKitRoutes } from '../../src/mediakit/routes.js';
import { createMediaKitService, type MediaKitService } from '../../src/mediakit/service.js';
import { up } from '../../src/store/migrations/010-bio.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';

/**
 * Shared set-up of the creator-pages suites: a store with 010 applied, a real link service, an
 * in-memory stats source with known numbers, and a small app wired the way src/app.ts wires it
 * (the `x-test-org` header stands in for the session cookie and the API key).
 */

export const BASE_URL = 'https://lnk.example';

/** Numbers the tests choose, per organization; anything unset is zero. */
export interface FakeStats extends CreatorStatsSource {
  links: Map<string, { clicks: number; outcomes: OutcomeCounts }>;
  summaries: Map<string, OrgSummary>;
  calls: string[];
}

export const EMPTY_SUMMARY: OrgSummary = {
  taps: 0,
  outcomes: { opened: 0, browser: 0, broken: 0 },
  platforms: [],
  topLinks: [],
  trend: [],
};

export function fakeStats(configured = true): FakeStats {
  const stats: FakeStats = {
    configured,
    links: new Map(),
    summaries: new Map(),
    calls: [],
    async linkStats(orgId, linkIds, days) {
      stats.calls.push(`linkStats ${orgId} ${days}`);
      return new Map(
        linkIds.flatMap((id) => {
          const row = stats.links.get(id);
          return row ? [[id, row] as const] : [];
        }),
      );
    },
    async orgSummary(orgId, days) {
      stats.calls.push(`orgSummary ${orgId} ${days}`);
      return stats.summaries.get(orgId) ?? EMPTY_SUMMARY;
    },
  };
  return stats;
}

export interface Harness {
  testStore: TestStore;
  app: FastifyInstance;
  links: LinkService;
  bio: BioService;
  mediaKit: MediaKitService;
  stats: FakeStats;
  org(tier: Tier): Promise<OrgContext>;
  link(ctx: OrgContext, url?: string): Promise<{ id: string; shortUrl: string; destination: string }>;
  close(): Promise<void>;
}

export async function harness(
  kind: StoreKind,
  options: { flagsOff?: string[]; configured?: boolean } = {},
): Promise<Harness> {
  const testStore = await kind.create();
  const registered = Object.keys(await migrationProvider.getMigrations()).some((n) => n.startsWith('010'));
  if (!registered) await up(testStore.store.db as unknown as Kysely<unknown>);
  const { store } = testStore;
  const accounts = createAccountService({
    repo: createAccountRepo(store),
    now: () => new Date(),
    uuid: randomUUID,
  });
  const links = createLinkService({
    repo: createLinkRepo(store),
    table: createPlatformTable(),
    baseUrl: BASE_URL,
    now: () => new Date(),
    uuid: randomUUID,
    randomBytes: (size) => randomBytes(size),
    invalidate: () => {},
    events: { emitIn: async () => 0, nudge: () => {} },
    reapplyLinkCap: async () => {},
  });
  const stats = fakeStats(options.configured ?? true);
  const flagsOff = new Set(options.flagsOff ?? []);
  const repo = createBioRepo(store);
  const bio = createBioService({
    repo,
    stats,
    baseUrl: BASE_URL,
    flagsOff,
    now: () => new Date(),
    uuid: randomUUID,
  });
  const mediaKit = createMediaKitService({ repo, bio, stats, flagsOff, now: () => new Date() });
  const contexts = new Map<string, OrgContext>();

  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(hostedErrorHandler);
  app.decorateRequest('org', null);
  const authed = (scope: FastifyInstance) =>
    scope.addHook('onRequest', async (request) => {
      const ctx = contexts.get(String(request.headers['x-test-org'] ?? ''));
      if (!ctx) throw appError('unauthenticated');
      request.org = ctx;
    });
  await app.register(
    async (api) => {
      await api.register(publicBioRoutes, { bio });
      await api.register(publicMediaKitRoutes, { mediaKit });
      await api.register(async (scope) => {
        authed(scope);
        await scope.register(bioRoutes, { bio, operationPrefix: 'dashboard' });
        await scope.register(mediaKitRoutes, { mediaKit });
      });
    },
    { prefix: '/api' },
  );
  await app.register(
    async (v1) => {
      authed(v1);
      await v1.register(bioRoutes, { bio });
    },
    { prefix: '/v1' },
  );
  let n = 0;
  const nonce = () => `nonce${++n}`;
  await app.register(bioPageRoutes, { bio, nonce, baseUrl: BASE_URL });
  await app.register(mediaKitPageRoutes, { mediaKit, nonce, baseUrl: BASE_URL });
  await app.ready();

  return {
    testStore,
    app,
    links,
    bio,
    mediaKit,
    stats,
    async org(tier) {
      const { orgId } = await accounts.createOrganization({ name: `${tier} org`, tier });
      const ctx = { orgId, tier, features: featuresOf(tier) };
      contexts.set(orgId, ctx);
      return ctx;
    },
    async link(ctx, url = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ') {
      const link = await links.create(ctx, { url });
      return { id: link.id, shortUrl: link.shortUrl, destination: link.destination };
    },
    async close() {
      await app.close();
      await testStore.dispose();
    },
  };
}

/** An inject helper that speaks as an organization. */
export function as(app: FastifyInstance, ctx: OrgContext | null) {
  const headers = ctx ? { 'x-test-org': ctx.orgId } : {};
  return {
    get: (url: string) => app.inject({ method: 'GET', url, headers }),
    delete: (url: string) => app.inject({ method: 'DELETE', url, headers }),
    put: (url: string, payload: unknown) =>
      app.inject({
        method: 'PUT',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      }),
  };
}

/** Handles unique per test run, so suites on one store never collide by accident. */
let counter = 0;
export function uniqueHandle(prefix = 'creator'): string {
  counter += 1;
  return `${prefix}_${process.pid % 1000}_${counter}`;
}
