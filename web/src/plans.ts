import { hasFeature } from '../../src/tenancy/plans.js';
import type { Feature, Tier } from './api/types';

/** The plan table is the server's own (src/tenancy/plans.ts): the dashboard cannot disagree with it. */
export const TIER_NAMES: Record<Tier, string> = { sidekick: 'Sidekick', hero: 'Hero', legend: 'Legend' };

export const FEATURE_NAMES: Record<Feature, string> = {
  customSlugs: 'Custom slugs',
  fullAnalytics: 'Full analytics',
  analyticsExport: 'Analytics export',
  removeBranding: 'No linkhop branding',
  api: 'API access',
  bulkCreate: 'Bulk link creation',
  editDestination: 'Editable destinations',
  platformTargeting: 'Device routing',
  qrCodes: 'QR codes',
  geoRouting: 'Country routing',
  passwordLinks: 'Password links',
  folders: 'Folders',
  qrCustomization: 'QR customization',
  richFallback: 'Rich fallback page',
  pixelInjection: 'Ad pixels',
  webhooks: 'Webhooks',
  audienceSegments: 'Audience segments',
  audienceCapture: 'Email capture',
  broadcasts: 'Email broadcasts',
  abTesting: 'A/B testing',
  scheduledLinks: 'Scheduled destinations',
  linkInBio: 'Link-in-bio page',
  bioCustomTheme: 'Custom bio theme',
  mediaKit: 'Media kit',
  dmAutomations: 'Instagram DM automations',
  customDomains: 'Custom domains',
};

/** The lowest tier that includes `feature`. */
export function tierFor(feature: Feature): Tier {
  if (hasFeature('sidekick', feature)) return 'sidekick';
  return hasFeature('hero', feature) ? 'hero' : 'legend';
}

/** "A/B testing is part of Hero and Legend." */
export function upgradeSentence(feature: Feature): string {
  const tier = tierFor(feature);
  const plans = tier === 'legend' ? 'the Legend plan' : 'Hero and Legend';
  return `${FEATURE_NAMES[feature]} is part of ${plans}.`;
}
