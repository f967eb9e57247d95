import { type AnalyticsService, rate } from '../analytics/service.js';
import type { OrgContext } from '../tenancy/context.js';
import { featuresOf, isTier } from '../tenancy/plans.js';
import type { StatsRepo } from './repo.js';
import type { LinkListStats, PublicStats } from './schema.js';

/** The window of public stats: the last 30 days, today included. */
export const PUBLIC_STATS_DAYS = 30;

export interface PublicStatsDeps {
  repo: StatsRepo;
  analytics: Pick<AnalyticsService, 'analytics' | 'linkOutcomes'>;
}

/**
 * Public stats (issue #20): a link whose owner set `publicStats` shows its clicks over time, countries,
 * devices and app-open rate to anyone, never anything about a single visitor. They are the owner's own
 * analytics read, so a plan without full analytics (or a link without the flag) has none: null, a 404.
 */
export function createPublicStatsService(deps: PublicStatsDeps) {
  return {
    /**
     * Each link's human clicks and app-open rate over the last 30 days, for the links list; the rate needs
     * full analytics, as everywhere else. Ids of other organizations' links simply count nothing.
     */
    async linkList(ctx: OrgContext, ids: readonly string[]): Promise<LinkListStats> {
      const sums = await deps.analytics.linkOutcomes(ctx.orgId, ids, PUBLIC_STATS_DAYS);
      const full = ctx.features.fullAnalytics;
      return {
        days: PUBLIC_STATS_DAYS,
        stats: [...sums].map(([linkId, { clicks, outcomes }]) => ({
          linkId,
          clicks,
          appOpenRate: full
            ? rate(outcomes.opened, outcomes.opened + outcomes.browser + outcomes.broken)
            : null,
        })),
      };
    },

    async read(host: string, slug: string): Promise<PublicStats | null> {
      const link = await deps.repo.findPublic(host, slug);
      if (!link) return null;
      const tier = isTier(link.tier) ? link.tier : 'sidekick';
      const ctx = { orgId: link.orgId, tier, features: featuresOf(tier) };
      const stats = await deps.analytics.analytics(ctx, { linkId: link.id, days: PUBLIC_STATS_DAYS });
      if (!('countries' in stats)) return null;
      const { opened, browser, broken } = stats.outcomes;
      return {
        slug: link.slug,
        clicks: stats.total,
        appOpenRate: rate(opened, opened + browser + broken),
        series: stats.timeseries.map((day) => ({ date: day.day, clicks: day.clicks })),
        countries: stats.countries,
        devices: stats.devices,
      };
    },
  };
}

export type PublicStatsService = ReturnType<typeof createPublicStatsService>;
