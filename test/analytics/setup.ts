import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type StoredClick, unpackBlock } from '../../src/analytics/click-blocks.js';
import { openClickhouseAnalytics } from '../../src/analytics/clickhouse/store.js';
import type { AnalyticsStore } from '../../src/analytics/repo.js';
import {
  type AnalyticsService,
  type AppEvent,
  createAnalyticsService,
  type TapEventData,
} from '../../src/analytics/service.js';
import { type ClickInput, createClickBuffer } from '../../src/analytics/write/click-buffer.js';
import { createTapTokens, type TapTokens } from '../../src/analytics/write/tap-tokens.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { createLinkRepo } from '../../src/links/repo.js';
import { createLinkService, type LinkService } from '../../src/links/service.js';
import type { Store } from '../../src/store/database.js';
import { up } from '../../src/store/migrations/008-analytics.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';
import { clickhouseKind, startClickhouse } from '../helpers/clickhouse.js';
import { type HostedHarness, onStore, startHosted } from '../helpers/hosted.js';
import { makeOrg as makeOrgRow } from '../helpers/org.js';
import { type StoreKind, sqliteKind, storeKinds, type TestStore } from '../helpers/stores.js';

/**
 * Shared set-up of the analytics suites: a store with 008 applied, organizations, links, the write path
 * and the service on a fixed clock; the reads over HTTP through the hosted service (startAnalytics).
 */

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

/**
 * Where a suite's analytics live: the main database of `store` (SQLite, PostgreSQL), or ClickHouse
 * (ANALYTICS_URL, a test server started for the suite) beside a SQLite main database. The analytics
 * suites that take these kinds run unchanged on all three (issue #35).
 */
export interface AnalyticsKind {
  name: 'sqlite' | 'postgres' | 'clickhouse';
  skipReason: string | null;
  store: StoreKind;
  clickhouse: boolean;
}

export const analyticsKinds: AnalyticsKind[] = [
  ...storeKinds.map((kind) => ({
    name: kind.name,
    skipReason: kind.skipReason,
    store: kind,
    clickhouse: false,
  })),
  { name: 'clickhouse', skipReason: clickhouseKind.skipReason, store: sqliteKind, clickhouse: true },
];

export function makeHarness(
  store: Store,
  options: { analytics?: boolean; now?: number; repo?: AnalyticsStore } = {},
): Harness {
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
    ...(options.repo ? { repo: options.repo } : {}),
  });
  const buffer = createClickBuffer({
    store,
    logger: silent,
    ...(options.repo ? { write: options.repo.writeClicks, idEveryBatch: true } : {}),
  });
  return { store, links, tapTokens, analytics, emitted, buffer };
}

type Owner = Awaited<ReturnType<HostedHarness['owner']>>;
/** An organization of the hosted service: its owner's session and API key, and its context for the services. */
export type HostedOrg = Owner & { ctx: OrgContext };
type Response = Awaited<ReturnType<HostedHarness['api']>>;

/** The analytics reads as the hosted service serves them, on a store the suite seeds. */
export interface HostedAnalytics {
  h: HostedHarness;
  /** The analytics write path and service on the hosted store, at NOW: how a suite seeds its data. */
  seeding: Harness;
  /** A Legend organization as its owner signs up for it. */
  org(): Promise<HostedOrg>;
  /**
   * GET as `org` on the plan `tier` (moved there through the accounts service first): /v1 with its API
   * key, which answers Legend only, /api with its owner's session; `on` another instance on the store.
   */
  get(org: HostedOrg, url: string, tier?: Tier, on?: HostedHarness): Promise<Response>;
  /** The operation ids of the analytics paths in the service's /openapi.json. */
  operationIds(): Promise<string[]>;
  /** A second instance with ANALYTICS=off on the same store (closed with this one). */
  analyticsOff(): Promise<HostedHarness>;
  /** Every raw click stored for the organization (bots included): its time and whether a bot made it. */
  rawClicks(orgId: string): Promise<{ at: number; bot: boolean }[]>;
  close(): Promise<void>;
}

const ANALYTICS_PATH =
  /^\/(v1|api)\/(analytics(\/|$)|links\/\{id\}\/(stats|clicks|ab-stats)$)|^\/api\/public\/tap$/;

/**
 * The hosted service through the composition root (startHosted) on the fixed clock, ANALYTICS=on; for the
 * ClickHouse kind with ANALYTICS_URL on a fresh database of a server started here, which the seeding
 * harness writes to through the same ClickHouse store.
 */
export async function startAnalytics(kind: AnalyticsKind): Promise<HostedAnalytics> {
  const ch = kind.clickhouse ? await startClickhouse() : null;
  const database = `t_${randomBytes(6).toString('hex')}`;
  const analyticsUrl = ch ? ch.urlFor(database) : null;
  const env = { ANALYTICS: 'on', ...(analyticsUrl ? { ANALYTICS_URL: analyticsUrl } : {}) };
  const h = await startHosted(kind.store, env, { now: () => NOW });
  const opened = analyticsUrl ? await openClickhouseAnalytics(analyticsUrl, h.testStore.store) : null;
  const seeding = makeHarness(h.testStore.store, opened ? { repo: opened.store } : {});
  const tiers = new Map<string, Tier>();
  const others: HostedHarness[] = [];
  return {
    h,
    seeding,
    async org() {
      const owner = await h.owner('legend');
      tiers.set(owner.orgId, 'legend');
      return { ...owner, ctx: ctxOf(owner.orgId, 'legend') };
    },
    async get(org, url, tier = 'legend', on = h) {
      if (url.startsWith('/v1/') && tier !== 'legend') throw new Error(`${url}: /v1 answers Legend only`);
      if (tiers.get(org.orgId) !== tier) {
        await h.accounts.setTier(org.orgId, tier);
        tiers.set(org.orgId, tier);
      }
      return url.startsWith('/v1/')
        ? on.v1(org.apiKey, { method: 'GET', url })
        : on.api(org.cookie, { method: 'GET', url });
    },
    async operationIds() {
      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { operationId?: string }>>;
      };
      return Object.entries(doc.paths)
        .filter(([path]) => ANALYTICS_PATH.test(path))
        .flatMap(([, operations]) => Object.values(operations).flatMap((op) => op.operationId ?? []));
    },
    async analyticsOff() {
      const off = await startHosted(
        onStore(kind.store, h.testStore),
        { ANALYTICS: 'off' },
        { now: () => NOW },
      );
      others.push(off);
      return off;
    },
    async rawClicks(orgId) {
      if (!ch) return (await storedClicks(h.testStore.store, orgId)).map(({ at, bot }) => ({ at, bot }));
      const text = await ch.query(
        `SELECT toUInt64(at) AS at, bot FROM ${database}.clicks WHERE org_id = '${orgId}' FORMAT JSONEachRow`,
      );
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { at: string; bot: number })
        .map((row) => ({ at: Number(row.at), bot: Number(row.bot) === 1 }));
    },
    async close() {
      for (const off of others) await off.close();
      await h.close();
      await opened?.close();
      await ch?.stop();
    },
  };
}
