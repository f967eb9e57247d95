import { describe, expect, it } from 'vitest';
import { compileLink, composeUtm, type LinkPowers } from '../../src/core/link-compile.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { chooseDestination } from '../../src/core/resolve.js';
import type { Os } from '../../src/core/visitor.js';

const table = createPlatformTable();
const base: LinkPowers = {
  destination: 'https://example.com/default',
  utm: null,
  routing: null,
  ab: null,
  sched: null,
};
const visit: { os: Os; country: string | null; nowSeconds: number; random: () => number } = {
  os: 'desktop',
  country: null,
  nowSeconds: 1_000,
  random: () => 0,
};
const locationOf = (powers: Partial<LinkPowers>, overrides: Partial<typeof visit> = {}) =>
  chooseDestination(compileLink(table, { ...base, ...powers }), { ...visit, ...overrides }).destination
    .location;

describe('UTM composition', () => {
  it('adds the parameters and keeps the existing query', () => {
    expect(composeUtm('https://shop.example/p?id=7', { source: 'ig', campaign: 'bf' })).toBe(
      'https://shop.example/p?id=7&utm_source=ig&utm_campaign=bf',
    );
  });

  it("the link's values win over the same parameter already in the URL", () => {
    expect(composeUtm('https://shop.example/?utm_source=old', { source: 'new' })).toBe(
      'https://shop.example/?utm_source=new',
    );
  });

  it('encodes hostile values instead of breaking the URL', () => {
    const url = composeUtm('https://shop.example/', { source: 'a&b=c#d', medium: ' ' });
    expect(new URL(url).searchParams.get('utm_source')).toBe('a&b=c#d');
    expect(new URL(url).hash).toBe('');
  });

  it('is composed onto routed, A/B and scheduled destinations; stored URLs stay unmodified', () => {
    const utm = { source: 'tt' };
    const powers = { utm, routing: { ios: 'https://ios.example/' }, ab: null, sched: null };
    expect(locationOf(powers, { os: 'ios' })).toBe('https://ios.example/?utm_source=tt');
    expect(
      locationOf({
        utm,
        ab: [
          { u: 'https://a.example/', w: 1 },
          { u: 'https://b.example/', w: 1 },
        ],
      }),
    ).toBe('https://a.example/?utm_source=tt');
    expect(locationOf({ utm, sched: [{ from: 10, url: 'https://s.example/' }] })).toBe(
      'https://s.example/?utm_source=tt',
    );
    expect(powers.routing.ios).toBe('https://ios.example/');
  });
});

describe('destination choice', () => {
  it('serves the default destination before the first schedule entry', () => {
    expect(locationOf({ sched: [{ from: 2_000, url: 'https://later.example/' }] })).toBe(
      'https://example.com/default',
    );
  });

  it('serves the latest past schedule entry, whatever the order given', () => {
    const sched = [
      { from: 900, url: 'https://b.example/' },
      { from: 100, url: 'https://a.example/' },
      { from: 5_000, url: 'https://c.example/' },
    ];
    expect(locationOf({ sched })).toBe('https://b.example/');
    expect(locationOf({ sched }, { nowSeconds: 5_000 })).toBe('https://c.example/');
  });

  it('collapses duplicate timestamps to the last one given', () => {
    const sched = [
      { from: 100, url: 'https://first.example/' },
      { from: 100, url: 'https://second.example/' },
    ];
    expect(locationOf({ sched })).toBe('https://second.example/');
  });

  it('draws A/B variants by relative weight', () => {
    const ab = [
      { u: 'https://a.example/', w: 1 },
      { u: 'https://b.example/', w: 3 },
    ];
    const compiled = compileLink(table, { ...base, ab });
    const pick = (random: number) => chooseDestination(compiled, { ...visit, random: () => random });
    expect(pick(0).variant).toBe(0);
    expect(pick(0.24).variant).toBe(0);
    expect(pick(0.25).variant).toBe(1);
    expect(pick(0.999).variant).toBe(1);
    expect(pick(0.5).destination.location).toBe('https://b.example/');
  });

  it('an A/B set that breaks the bounds means no test', () => {
    expect(locationOf({ ab: [{ u: 'https://a.example/', w: 1 }] })).toBe('https://example.com/default');
    expect(
      locationOf({
        ab: [
          { u: 'https://a.example/', w: 0 },
          { u: 'https://b.example/', w: 1 },
        ],
      }),
    ).toBe('https://example.com/default');
  });

  it('routes by device first, then by country', () => {
    const routing = { ios: 'https://ios.example/', geo: { DE: 'https://de.example/' } };
    expect(locationOf({ routing }, { os: 'ios', country: 'DE' })).toBe('https://ios.example/');
    expect(locationOf({ routing }, { os: 'android', country: 'DE' })).toBe('https://de.example/');
    expect(locationOf({ routing }, { os: 'android', country: 'FR' })).toBe('https://example.com/default');
    expect(locationOf({ routing }, { os: 'desktop', country: null })).toBe('https://example.com/default');
  });

  it('precomputes the app hand-off of each possible destination', () => {
    const compiled = compileLink(table, {
      ...base,
      routing: { android: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
    });
    expect(compiled.routing?.byOs.android?.target?.platformKey).toBe('youtube');
    expect(compiled.fallback.target).toBeNull();
  });
});
