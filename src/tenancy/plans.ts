/**
 * The plan table of decisions.md: which features each tier has and how many live links it keeps.
 * Pure data plus two lookups; the one place a tier's entitlements are decided.
 */

export const TIERS = ['sidekick', 'hero', 'legend'] as const;
export type Tier = (typeof TIERS)[number];

export const FEATURES = [
  'customSlugs',
  'fullAnalytics',
  'analyticsExport',
  'removeBranding',
  'api',
  'bulkCreate',
  'editDestination',
  'platformTargeting',
  'qrCodes',
  'geoRouting',
  'passwordLinks',
  'folders',
  'qrCustomization',
  'richFallback',
  'pixelInjection',
  'webhooks',
  'audienceSegments',
  'audienceCapture',
  'broadcasts',
  'abTesting',
  'scheduledLinks',
  'linkInBio',
  'bioCustomTheme',
  'mediaKit',
  'dmAutomations',
  'customDomains',
] as const;
export type Feature = (typeof FEATURES)[number];
export type Features = Record<Feature, boolean>;

const EVERY_TIER: readonly Feature[] = ['linkInBio', 'qrCodes', 'editDestination'];
const HERO_UP: readonly Feature[] = [
  'customSlugs',
  'fullAnalytics',
  'analyticsExport',
  'removeBranding',
  'platformTargeting',
  'geoRouting',
  'passwordLinks',
  'folders',
  'qrCustomization',
  'richFallback',
  'pixelInjection',
  'audienceCapture',
  'broadcasts',
  'abTesting',
  'scheduledLinks',
  'bioCustomTheme',
  'mediaKit',
  // Owned, verified hostnames for links: with removeBranding, the branded-link tiers (issue 17).
  'customDomains',
];
const LEGEND_ONLY: readonly Feature[] = [
  'api',
  'bulkCreate',
  'webhooks',
  'audienceSegments',
  'dmAutomations',
];

const GRANTS: Record<Tier, ReadonlySet<Feature>> = {
  sidekick: new Set(EVERY_TIER),
  hero: new Set([...EVERY_TIER, ...HERO_UP]),
  legend: new Set([...EVERY_TIER, ...HERO_UP, ...LEGEND_ONLY]),
};

export const LINK_CAPS: Record<Tier, number> = { sidekick: 25, hero: 1000, legend: 100_000 };

export function featuresOf(tier: Tier): Features {
  const grants = GRANTS[tier];
  return Object.fromEntries(FEATURES.map((feature) => [feature, grants.has(feature)])) as Features;
}

export function hasFeature(tier: Tier, feature: Feature): boolean {
  return GRANTS[tier].has(feature);
}

/** The error code of a missing feature: its snake_case (`abTesting` -> `ab_testing`). */
export function featureCode(feature: Feature): string {
  return feature.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The plans' names as people read them (the dashboard, error messages). */
export const PLAN_NAMES: Record<Tier, string> = { sidekick: 'Sidekick', hero: 'Hero', legend: 'Legend' };

/** The cheapest plan that has `feature` (every feature is on Legend). */
export function lowestTierWith(feature: Feature): Tier {
  return TIERS.find((tier) => GRANTS[tier].has(feature)) ?? 'legend';
}

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}
