import { type CompiledDestination, type CompileOptions, compileDestination } from './destination.js';
import type { PlatformTable } from './platforms/index.js';
import type { Os } from './visitor.js';

/**
 * A hosted link compiled once, when it is loaded into the cache: every URL it can send a visitor to
 * already has its UTM parameters composed and its app hand-off computed, the schedule is sorted, and
 * the A/B weights are cumulative. A visit only picks among them.
 */

export interface LinkPowers {
  destination: string;
  utm: Partial<Record<'source' | 'medium' | 'campaign' | 'term' | 'content', string>> | null;
  routing: { ios?: string; android?: string; desktop?: string; geo?: Record<string, string> } | null;
  ab: { u: string; w: number }[] | null;
  sched: { from: number; url: string }[] | null;
  /** Campaign end (ISO 8601) and click limit: once either is reached every visit goes to expiredUrl. */
  expiresAt?: string | null;
  expiredUrl?: string | null;
  maxClicks?: number | null;
  /** Human clicks counted so far against maxClicks. */
  clickCount?: number;
}

/** A link's expiry as compiled: absent (null) for the links that have none, nearly all of them. */
export interface CompiledExpiry {
  /** Epoch milliseconds of the end date, or null. */
  at: number | null;
  /** Null when there is no limit; counting then never happens. */
  maxClicks: number | null;
  /** True when the limit was already reached when the link was loaded. */
  reached: boolean;
  /** Where an expired link sends everyone: a plain redirect (no app target, so never an escape page). */
  destination: CompiledDestination;
}

export interface CompiledLink {
  fallback: CompiledDestination;
  /** Ascending by `from`; duplicates already collapsed to the last one given. */
  sched: { from: number; destination: CompiledDestination }[];
  /** Null when there is no test, or the stored set breaks the rules (then it is treated as no test). */
  ab: { variants: CompiledDestination[]; cumulative: number[]; total: number } | null;
  routing: {
    byOs: Partial<Record<Os, CompiledDestination>>;
    byCountry: ReadonlyMap<string, CompiledDestination>;
  } | null;
  expiry: CompiledExpiry | null;
}

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/** Adds the link's UTM parameters to a URL, keeping its own query; the link's values win on a clash. */
export function composeUtm(url: string, utm: LinkPowers['utm']): string {
  if (!utm) return url;
  const parsed = new URL(url);
  for (const key of UTM_KEYS) {
    const value = utm[key];
    if (value !== undefined && value !== '') parsed.searchParams.set(`utm_${key}`, value);
  }
  return parsed.href;
}

function validAb(ab: LinkPowers['ab']): ab is { u: string; w: number }[] {
  return (
    Array.isArray(ab) &&
    ab.length >= 2 &&
    ab.length <= 4 &&
    ab.every((variant) => Number.isFinite(variant.w) && variant.w > 0 && /^https?:\/\//.test(variant.u))
  );
}

export function compileLink(
  table: PlatformTable,
  powers: LinkPowers,
  options: CompileOptions = {},
): CompiledLink {
  const cache = new Map<string, CompiledDestination>();
  const compile = (url: string): CompiledDestination => {
    let compiled = cache.get(url);
    if (!compiled) {
      compiled = compileDestination(table, composeUtm(url, powers.utm), options);
      cache.set(url, compiled);
    }
    return compiled;
  };

  const byFrom = new Map<number, string>();
  for (const entry of powers.sched ?? []) byFrom.set(entry.from, entry.url);
  const sched = [...byFrom.entries()]
    .sort(([a], [b]) => a - b)
    .map(([from, url]) => ({ from, destination: compile(url) }));

  let ab: CompiledLink['ab'] = null;
  if (validAb(powers.ab)) {
    let total = 0;
    const cumulative = powers.ab.map((variant) => {
      total += variant.w;
      return total;
    });
    ab = { variants: powers.ab.map((variant) => compile(variant.u)), cumulative, total };
  }

  let routing: CompiledLink['routing'] = null;
  if (powers.routing) {
    const { ios, android, desktop, geo } = powers.routing;
    const byOs: Partial<Record<Os, CompiledDestination>> = {};
    if (ios) byOs.ios = compile(ios);
    if (android) byOs.android = compile(android);
    if (desktop) byOs.desktop = compile(desktop);
    const byCountry = new Map(
      Object.entries(geo ?? {}).map(([country, url]) => [country.toUpperCase(), compile(url)]),
    );
    if (Object.keys(byOs).length > 0 || byCountry.size > 0) routing = { byOs, byCountry };
  }

  return { fallback: compile(powers.destination), sched, ab, routing, expiry: compileExpiry(powers) };
}

function compileExpiry(powers: LinkPowers): CompiledExpiry | null {
  const { expiresAt, expiredUrl, maxClicks } = powers;
  if (!expiredUrl || (!expiresAt && !maxClicks)) return null;
  const at = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  const limit = maxClicks ?? null;
  return {
    at: Number.isFinite(at) ? at : null,
    maxClicks: limit,
    reached: limit !== null && (powers.clickCount ?? 0) >= limit,
    destination: { location: new URL(expiredUrl).href, target: null },
  };
}

/** Expired as of `nowMs`: the end date has passed or the counted human clicks reached the limit. */
export function isExpired(
  link: { expiresAt: string | null; maxClicks: number | null; clickCount: number },
  nowMs: number,
): boolean {
  const byTime = link.expiresAt !== null && Date.parse(link.expiresAt) <= nowMs;
  return byTime || (link.maxClicks !== null && link.clickCount >= link.maxClicks);
}
