import type { AnalyticsService } from '../analytics/service.js';
import type { Store } from '../store/database.js';
import { featuresOf } from '../tenancy/plans.js';
import { createBioRepo } from './repo.js';
import type { CreatorStatsSource } from './stats-source.js';

/** The creator pages' view of analytics: per-link outcome splits and an organization summary. */
export function createCreatorStats(deps: { analytics: AnalyticsService; store: Store }): CreatorStatsSource {
  const { analytics } = deps;
  const repo = createBioRepo(deps.store);
  return {
    configured: analytics.configured,
    linkStats: (orgId, linkIds, days) => analytics.linkOutcomes(orgId, linkIds, days),
    async orgSummary(orgId, days) {
      // Read with every series on: the media kit decides itself what its plan lets it publish.
      const full = await analytics.analytics(
        { orgId, tier: 'legend', features: featuresOf('legend') },
        { days },
      );
      const perLink = await analytics.linkOutcomes(orgId, await repo.linkIdsOfOrg(orgId), days);
      const topLinks = [...perLink]
        .map(([linkId, { clicks }]) => ({ linkId, clicks }))
        .filter((row) => row.clicks > 0)
        .sort((a, b) => b.clicks - a.clicks)
        .slice(0, 10);
      return {
        taps: full.total,
        outcomes: 'outcomes' in full && full.outcomes ? full.outcomes : { opened: 0, browser: 0, broken: 0 },
        platforms:
          'platforms' in full && full.platforms
            ? full.platforms.map((row) => ({ platform: row.platform ?? 'web', clicks: row.clicks }))
            : [],
        topLinks,
        trend: 'timeseries' in full && full.timeseries ? full.timeseries : [],
      };
    },
  };
}
