/**
 * What the creator pages need from analytics. Analytics is its own domain; this narrow interface keeps
 * the bio and media kit code testable with fixed numbers and lets the composition root adapt whatever
 * the analytics service offers.
 */
export interface OutcomeCounts {
  opened: number;
  browser: number;
  broken: number;
}

export interface OrgSummary {
  taps: number;
  outcomes: OutcomeCounts;
  platforms: { platform: string; clicks: number }[];
  topLinks: { linkId: string; clicks: number }[];
  trend: { day: string; clicks: number }[];
}

export interface CreatorStatsSource {
  /** Per-link totals over `days` for these links (missing links count as zero). */
  linkStats(
    orgId: string,
    linkIds: string[],
    days: number,
  ): Promise<Map<string, { clicks: number; outcomes: OutcomeCounts }>>;
  /** Org-level numbers for the media kit. */
  orgSummary(orgId: string, days: number): Promise<OrgSummary>;
  /** False when the analytics store is not connected: every number is a placeholder zero. */
  configured: boolean;
}

/** The stats window of hosted-service.md section 8. */
export const STATS_WINDOW_DAYS = 90;

export const UPGRADE = 'Upgrade to hero or legend to see this data.';

export function measured(o: OutcomeCounts): number {
  return o.opened + o.browser + o.broken;
}

/** opened / measured outcomes; null (never 0) when nothing was measured. */
export function appOpenRate(o: OutcomeCounts): number | null {
  const total = measured(o);
  return total === 0 ? null : Math.round((o.opened / total) * 10_000) / 10_000;
}
