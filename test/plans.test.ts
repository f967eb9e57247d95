import { describe, expect, it } from 'vitest';
import { FEATURES, featureCode, featuresOf, hasFeature, LINK_CAPS } from '../src/tenancy/plans.js';

describe('the plan table of decisions.md', () => {
  it('gives every tier all 26 features as booleans', () => {
    for (const tier of ['sidekick', 'hero', 'legend'] as const) {
      const features = featuresOf(tier);
      expect(Object.keys(features).sort()).toEqual([...FEATURES].sort());
      expect(Object.values(features).every((value) => typeof value === 'boolean')).toBe(true);
    }
    expect(FEATURES).toHaveLength(26);
  });

  it('sidekick has link-in-bio, QR codes and destination edits only', () => {
    const on = Object.entries(featuresOf('sidekick')).filter(([, value]) => value);
    expect(on.map(([name]) => name).sort()).toEqual(['editDestination', 'linkInBio', 'qrCodes']);
  });

  it('hero adds the link powers but not the API, bulk, webhooks, segments or DM automations', () => {
    expect(hasFeature('hero', 'abTesting')).toBe(true);
    expect(hasFeature('hero', 'mediaKit')).toBe(true);
    expect(hasFeature('hero', 'removeBranding')).toBe(true);
    expect(hasFeature('hero', 'customDomains')).toBe(true);
    expect(hasFeature('sidekick', 'customDomains')).toBe(false);
    for (const feature of ['api', 'bulkCreate', 'webhooks', 'audienceSegments', 'dmAutomations'] as const) {
      expect(hasFeature('hero', feature)).toBe(false);
      expect(hasFeature('legend', feature)).toBe(true);
    }
  });

  it('legend has everything', () => {
    expect(Object.values(featuresOf('legend')).every(Boolean)).toBe(true);
  });

  it('link caps are 25, 1000 and 100000', () => {
    expect(LINK_CAPS).toEqual({ sidekick: 25, hero: 1000, legend: 100_000 });
  });

  it('feature codes are the snake_case of the feature name', () => {
    expect(featureCode('abTesting')).toBe('ab_testing');
    expect(featureCode('scheduledLinks')).toBe('scheduled_links');
    expect(featureCode('bulkCreate')).toBe('bulk_create');
    expect(featureCode('passwordLinks')).toBe('password_links');
    expect(featureCode('api')).toBe('api');
  });
});
