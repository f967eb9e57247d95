/**
 * The numbers of a link's A/B test (issue #33): which variant is best at getting the app opened, and when a
 * test may conclude by itself. Pure: counts in, numbers out; the randomness comes from a seed, so the same
 * counts read twice give the same answer, on every instance.
 *
 * Each variant's open rate has a Beta(1 + opened, 1 + not opened) posterior (a Beta(1, 1) prior: nothing
 * known), where "not opened" is the taps that reported `browser` or `broken`. The probability that a
 * variant is best is the share of joint posterior draws in which its draw is the highest, estimated by
 * Monte Carlo with a fixed number of draws; the sampling is the escape bandit's (core/escape/bandit.ts).
 */

import { probabilityBest } from './escape/bandit.js';

/** Joint draws per readout: a probability near one half is within ±0.7 % (two standard errors). */
export const AB_SAMPLES = 20_000;

/** What a variant collected: human visits and the app-open outcomes its escape pages reported. */
export interface VariantCounts {
  visits: number;
  opened: number;
  browser: number;
  broken: number;
}

/** Concludes a test by itself once every variant has `minVisits` and one is best with `confidence`. */
export interface AutoPromoteRule {
  minVisits: number;
  confidence: number;
}

/** FNV-1a (32 bits) of a string: the seed of a link's draws, taken from its id. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a small, fast seeded source of uniform numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Opened among the reported outcomes; null when none was reported. */
export function openRateOf(counts: VariantCounts): number | null {
  const reported = counts.opened + counts.browser + counts.broken;
  return reported > 0 ? counts.opened / reported : null;
}

/**
 * For each variant, the probability that its open rate is the highest, from `samples` joint draws seeded
 * by `seed` (the link's id), rounded to four decimals.
 */
export function probabilitiesBest(
  variants: readonly VariantCounts[],
  seed: string,
  samples = AB_SAMPLES,
): number[] {
  if (variants.length === 0) return [];
  const arms = variants.map((v) => ({ opened: v.opened, outcomes: v.opened + v.browser + v.broken }));
  return probabilityBest(arms, seededRandom(seedOf(seed)), samples).map(
    (p) => Math.round(p * 10_000) / 10_000,
  );
}

/**
 * The variant an auto-promote rule picks, or null: every variant has at least `minVisits` visits, and the
 * one most likely to be best is so with at least `confidence`.
 */
export function autoPromoteChoice(
  variants: readonly VariantCounts[],
  probabilities: readonly number[],
  rule: AutoPromoteRule,
): number | null {
  if (variants.length < 2 || variants.some((v) => v.visits < rule.minVisits)) return null;
  let best = 0;
  for (let i = 1; i < probabilities.length; i++)
    if ((probabilities[i] ?? 0) > (probabilities[best] ?? 0)) best = i;
  return (probabilities[best] ?? 0) >= rule.confidence ? best : null;
}
