import { featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { createEscapeCellReads } from './read/escape-cell-reads.js';
import { outcomeOf } from './read/export.js';
import {
  type AnalyticsStore,
  createAnalyticsRepo,
  DAY_MS,
  type DayRange,
  type ExportRow,
  OUTCOMES,
  type Outcome,
  type OutcomeRow,
  type Scope,
  SEP,
} from './repo.js';
import {
  type AppEvent,
  createOutcomeRecorder,
  isOutcome,
  type OutcomeOutbox,
  type TapEventData,
} from './write/outcomes.js';
import type { TapTokens } from './write/tap-tokens.js';

export type { AppEvent, TapEventData };

/**
 * Analytics reads with the plan rules of hosted-service.md section 2, and tap outcomes (outcomes.ts).
 * Numbers are "sampled" in the spec's sense: clicks are every human visit the buffer wrote (exact but for a
 * crash window and bot detection), outcomes only the taps whose page reported back, so rates are estimates.
 */

export const STATS_WINDOW_DAYS = 90;
export const UPGRADE = 'Upgrade to hero or legend to see this data.';
const TOP = 50;
const PER_LINK = 200;
const CLICKS_DEFAULT_LIMIT = 1000;

export interface AnalyticsServiceDeps {
  store: Store;
  /** ANALYTICS=on: false answers `configured: false` with placeholder zeros. */
  analytics: boolean;
  links: { get(ctx: OrgContext, id: string): Promise<{ ab: { u: string; w: number }[] | null }> };
  tapTokens: Pick<TapTokens, 'redeem' | 'verify'>;
  emitEvent: (orgId: string, event: AppEvent, data: TapEventData) => Promise<void>;
  /** The webhook outbox: a stored outcome's app.* event commits with it. */
  outbox?: OutcomeOutbox;
  now: () => Date;
  /** The analytics store: the main database's unless ANALYTICS_URL's ClickHouse is given. */
  repo?: AnalyticsStore;
  /** Keeps a tap outcome the store refused, for a later retry (outcome-queue.ts). */
  holdOutcome?: (row: OutcomeRow) => void;
}

export interface AnalyticsQuery {
  days?: number | undefined;
  linkId?: string | undefined;
  folderId?: string | undefined;
  tag?: string | undefined;
}

type Outcomes = Record<Outcome, number>;
const zeroOutcomes = (): Outcomes => ({ opened: 0, browser: 0, broken: 0 });
/** Opened among the taps that reported; null (never 0) when none did. Four decimals: it is an estimate. */
export const rate = (opened: number, reported: number): number | null =>
  reported > 0 ? Math.round((opened / reported) * 10_000) / 10_000 : null;
const clampDays = (days: number) => Math.min(STATS_WINDOW_DAYS, Math.max(1, Math.trunc(days) || 1));
const dayIso = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const byClicks =
  <T extends { clicks: number }>(key: (row: T) => string) =>
  (a: T, b: T) =>
    b.clicks - a.clicks || key(a).localeCompare(key(b));
/** Clicks per source: the rollups count QR scans apart, the rest of the total came through the link itself. */
const sourcesOf = (total: number, qr: number) => ({ link: Math.max(0, total - qr), qr });
const split = (value: string): [string, string] => {
  const at = value.lastIndexOf(SEP);
  return [value.slice(0, at), value.slice(at + 1)];
};

/**
 * The pages with the first one already read: a store that is away fails here, before the route sends its
 * first byte, so the client gets the 503 `unavailable` a read gets instead of a 200 cut short.
 */
async function primed<T>(pages: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    for (let step = first; !step.done; step = await iterator.next()) yield step.value;
  })();
}

export function createAnalyticsService(deps: AnalyticsServiceDeps) {
  const repo = deps.repo ?? createAnalyticsRepo(deps.store);
  const configured = deps.analytics;
  /** The `days` whole UTC days ending today (today included), 1 to 90 (hosted-service.md section 8). */
  const window = (days: number): DayRange => {
    const today = Math.floor(deps.now().getTime() / DAY_MS);
    return { from: today - clampDays(days) + 1, to: today };
  };
  const fromDay = (days: number) => window(days).from;

  function series(days: number, daily: Map<number, number>) {
    const first = fromDay(days);
    return Array.from({ length: days }, (_, i) => ({
      day: dayIso(first + i),
      clicks: daily.get(first + i) ?? 0,
    }));
  }

  /** Per-link clicks and outcomes; QR scans too when `withSources` (only link stats show them). */
  async function outcomeSums(orgId: string, ids: readonly string[], days: number, withSources = false) {
    const byLink = new Map<string, { clicks: number; qr: number; outcomes: Outcomes }>();
    for (const id of ids) byLink.set(id, { clicks: 0, qr: 0, outcomes: zeroOutcomes() });
    if (!configured || ids.length === 0) return byLink;
    const dimensions = withSources ? ['total', 'outcome', 'source'] : ['total', 'outcome'];
    for (const row of await repo.linkSums(orgId, [...byLink.keys()], dimensions, window(days))) {
      const entry = byLink.get(row.linkId);
      if (!entry) continue;
      if (row.dimension === 'total') entry.clicks += row.clicks;
      else if (row.dimension === 'source') entry.qr += row.value === 'qr' ? row.clicks : 0;
      else if (isOutcome(row.value)) entry.outcomes[row.value] += row.clicks;
    }
    return byLink;
  }

  const reported = (o: Outcomes) => o.opened + o.browser + o.broken;

  return {
    recordOutcome: createOutcomeRecorder({
      ...deps,
      repo,
      ...(deps.holdOutcome ? { hold: deps.holdOutcome } : {}),
    }),

    /** Link stats: 90 days; the outcome split needs fullAnalytics. */
    async linkStats(ctx: OrgContext, id: string) {
      await deps.links.get(ctx, id);
      const full = ctx.features.fullAnalytics;
      const entry = (await outcomeSums(ctx.orgId, [id], STATS_WINDOW_DAYS, true)).get(id);
      const outcomes = full && entry ? entry.outcomes : zeroOutcomes();
      return {
        configured,
        total: entry?.clicks ?? 0,
        sources: sourcesOf(entry?.clicks ?? 0, entry?.qr ?? 0),
        appOpenRate: rate(outcomes.opened, reported(outcomes)),
        outcomes,
        ...(full ? {} : { upgrade: UPGRADE }),
      };
    },

    /** The raw clicks of one link, newest first, within the window. */
    async clicks(
      ctx: OrgContext,
      id: string,
      page: { limit?: number | undefined; offset?: number | undefined },
    ) {
      await deps.links.get(ctx, id);
      if (!ctx.features.fullAnalytics) return { configured, clicks: [], upgrade: UPGRADE };
      if (!configured) return { configured, clicks: [] };
      const from = fromDay(STATS_WINDOW_DAYS) * DAY_MS;
      const rows = await repo.clicks(id, from, page.limit ?? CLICKS_DEFAULT_LIMIT, page.offset ?? 0);
      return {
        configured,
        clicks: rows.map((row) => ({
          id: row.id,
          at: new Date(row.at).toISOString(),
          outcome: outcomeOf(row),
          sourceApp: row.source_app,
          country: row.country,
          city: row.city,
          device: row.device,
          source: row.source,
        })),
      };
    },

    /** Per-variant clicks and outcomes of the link's current `ab` array; a variant without traffic shows zeros. */
    async abStats(ctx: OrgContext, id: string) {
      const link = await deps.links.get(ctx, id);
      const base = { configured, sampled: true as const, window: STATS_WINDOW_DAYS };
      if (!ctx.features.fullAnalytics) return { ...base, variants: [], upgrade: UPGRADE };
      const ab = link.ab ?? [];
      const counts = new Map<string, number>();
      if (configured && ab.length > 0) {
        const dims = ['variant', 'variant_outcome'];
        for (const row of await repo.linkSums(ctx.orgId, [id], dims, window(STATS_WINDOW_DAYS)))
          counts.set(`${row.dimension}:${row.value}`, row.clicks);
      }
      const variants = ab.map((variant, index) => {
        const opened = counts.get(`variant_outcome:${index}${SEP}opened`) ?? 0;
        const outcomes = OUTCOMES.reduce(
          (sum, o) => sum + (counts.get(`variant_outcome:${index}${SEP}${o}`) ?? 0),
          0,
        );
        const clicks = counts.get(`variant:${index}`) ?? 0;
        return {
          url: variant.u,
          weight: variant.w,
          variant: index,
          clicks,
          outcomes,
          opened,
          appOpenRate: rate(opened, outcomes),
        };
      });
      return { ...base, variants };
    },

    /**
     * One link's human clicks and reported outcomes per A/B variant (0 to `variants` - 1) over the whole UTC
     * days of `range`: what an A/B readout is computed from. Zeros when analytics is off.
     */
    async variantCounts(orgId: string, linkId: string, variants: number, range: DayRange) {
      const counts = Array.from({ length: variants }, () => ({ visits: 0, ...zeroOutcomes() }));
      if (!configured || variants === 0) return counts;
      for (const row of await repo.linkSums(orgId, [linkId], ['variant', 'variant_outcome'], range)) {
        const [index, outcome] = row.dimension === 'variant' ? [row.value, null] : split(row.value);
        const entry = counts[Number(index)];
        if (!entry || !/^\d+$/.test(index)) continue;
        if (outcome === null) entry.visits += row.clicks;
        else if (isOutcome(outcome)) entry[outcome] += row.clicks;
      }
      return counts;
    },

    /** /v1/analytics: totals on every plan, every series from hero up. */
    async analytics(ctx: OrgContext, query: AnalyticsQuery) {
      const days = clampDays(query.days ?? 30);
      if (query.linkId) await deps.links.get(ctx, query.linkId);
      const full = ctx.features.fullAnalytics;
      const scope: Scope = {
        orgId: ctx.orgId,
        linkId: query.linkId,
        folderId: query.folderId,
        tag: query.tag,
      };
      const dims = full
        ? [
            'total',
            'source',
            'country',
            'device',
            'platform',
            'referrer',
            'hour',
            'outcome',
            'platform_outcome',
          ]
        : ['total', 'source'];
      const sums = configured ? await repo.sums(scope, dims, window(days)) : [];
      const perLink = configured ? await repo.perLink(scope, window(days), PER_LINK) : [];
      const of = (dimension: string) => sums.filter((row) => row.dimension === dimension);
      const total = of('total').reduce((sum, row) => sum + row.clicks, 0);
      const qr = of('source').reduce((sum, row) => sum + (row.value === 'qr' ? row.clicks : 0), 0);
      const sources = sourcesOf(total, qr);
      const head = { configured, sampled: true as const, days, tier: ctx.tier, total, sources, perLink };
      if (!full) return { ...head, upgrade: UPGRADE };
      // Unknown values ('' in the rollups: no country header, no referrer, no platform) read as null.
      const named = (dimension: string) =>
        of(dimension)
          .map((row) => ({ name: row.value === '' ? null : row.value, clicks: row.clicks }))
          .sort(byClicks((row) => row.name ?? ''))
          .slice(0, TOP);
      const outcomes = zeroOutcomes();
      for (const row of of('outcome')) if (isOutcome(row.value)) outcomes[row.value] += row.clicks;
      const hours = new Map(of('hour').map((row) => [Number(row.value), row.clicks]));
      const daily = configured ? await repo.daily(scope, window(days)) : new Map<number, number>();
      return {
        ...head,
        countries: named('country').map(({ name, clicks }) => ({ country: name, clicks })),
        devices: of('device')
          .map((row) => ({ device: row.value, clicks: row.clicks }))
          .sort(byClicks((row) => row.device)),
        platforms: named('platform').map(({ name, clicks }) => ({ platform: name, clicks })),
        referrers: named('referrer').map(({ name, clicks }) => ({ referrer: name, clicks })),
        timeseries: series(days, daily),
        hourly: Array.from({ length: 24 }, (_, hour) => ({ hour, clicks: hours.get(hour) ?? 0 })),
        outcomes,
        platformOutcomes: of('platform_outcome')
          .map((row) => {
            const [platform, outcome] = split(row.value);
            return { platform: platform === '' ? null : platform, outcome, clicks: row.clicks };
          })
          .sort(byClicks((row) => `${row.platform ?? ''}${SEP}${row.outcome}`)),
      };
    },

    /** Bio stats rows for the bio domain: one per distinct link, in the order given; it adds `upgrade`. */
    async blockStats(orgId: string, linkIds: readonly string[], days = STATS_WINDOW_DAYS) {
      const sums = await outcomeSums(orgId, [...new Set(linkIds)], days);
      const blocks = [...sums].map(([linkId, { clicks, outcomes }]) => ({
        linkId,
        clicks,
        outcomes: reported(outcomes),
        opened: outcomes.opened,
        appOpenRate: rate(outcomes.opened, reported(outcomes)),
      }));
      return { configured, sampled: true as const, window: clampDays(days), blocks };
    },

    /** The export's rows, a page at a time; checked (plan, tenancy) before the first byte is sent. */
    async exportPages(ctx: OrgContext, query: AnalyticsQuery): Promise<AsyncIterable<ExportRow[]>> {
      if (!ctx.features.analyticsExport) throw featureError('analyticsExport');
      if (query.linkId) await deps.links.get(ctx, query.linkId);
      if (!configured) return (async function* () {})();
      const scope: Scope = {
        orgId: ctx.orgId,
        linkId: query.linkId,
        folderId: query.folderId,
        tag: query.tag,
      };
      return primed(repo.exportPages(scope, fromDay(query.days ?? 30) * DAY_MS));
    },

    /** Per-link clicks and outcome split over `days` (zeros for links without rows): for other domains. */
    linkOutcomes: outcomeSums,

    /** Taps and outcomes per escape cell (escape-cell-reads.ts), and every organization's for the bandit. */
    ...createEscapeCellReads({ repo, links: deps.links, configured, window, upgrade: UPGRADE }),

    configured,
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
