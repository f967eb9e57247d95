import { describe, expect, it } from 'vitest';
import {
  AB_SAMPLES,
  autoPromoteChoice,
  openRateOf,
  probabilitiesBest,
  seededRandom,
  seedOf,
  type VariantCounts,
} from '../../src/core/ab-test.js';

/**
 * The A/B readout's maths (issue #33) against answers known without Monte Carlo: the exact probability
 * that one Beta posterior exceeds another (a finite sum for integer parameters), and the symmetric case.
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7): enough digits for the exact sums below. */
function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}
const lnBeta = (a: number, b: number) => lnGamma(a) + lnGamma(b) - lnGamma(a + b);

/** P(X_b > X_a) for X_a ~ Beta(aA, bA), X_b ~ Beta(aB, bB), aB a whole number (Evan Miller's formula). */
function exactBBeatsA(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  for (let i = 0; i < aB; i++)
    total += Math.exp(lnBeta(aA + i, bA + bB) - Math.log(bB + i) - lnBeta(1 + i, bB) - lnBeta(aA, bA));
  return total;
}

const v = (visits: number, opened: number, notOpened: number): VariantCounts => ({
  visits,
  opened,
  browser: notOpened,
  broken: 0,
});

describe('probability best', () => {
  it('B opens 60 of 100, A 30 of 100: B is best with probability above 0.99', () => {
    const [a, b] = probabilitiesBest([v(100, 30, 70), v(100, 60, 40)], 'link-1');
    expect(b).toBeGreaterThan(0.99);
    expect((a ?? 0) + (b ?? 0)).toBeCloseTo(1, 3);
    // The exact answer: 1 - 1.4e-5.
    expect(exactBBeatsA(31, 71, 61, 41)).toBeGreaterThan(0.9999);
  });

  it('equal counts: about one half each', () => {
    const [a, b] = probabilitiesBest([v(100, 30, 70), v(100, 30, 70)], 'link-2');
    expect(a).toBeGreaterThan(0.48);
    expect(a).toBeLessThan(0.52);
    expect(b).toBeCloseTo(1 - (a ?? 0), 3);
  });

  it('a close test agrees with the exact probability within Monte Carlo error', () => {
    // A 45/100 vs B 55/100: exactly P(B best) ≈ 0.92.
    const exact = exactBBeatsA(46, 56, 56, 46);
    expect(exact).toBeGreaterThan(0.9);
    expect(exact).toBeLessThan(0.94);
    const [, b] = probabilitiesBest([v(100, 45, 55), v(100, 55, 45)], 'link-3');
    // Standard error at 20,000 draws: sqrt(0.92 × 0.08 / 20000) ≈ 0.002; allow four of them.
    expect(Math.abs((b ?? 0) - exact)).toBeLessThan(0.008);
  });

  it('no outcomes: every variant alike (uniform prior), three variants about a third each', () => {
    const three = probabilitiesBest([v(10, 0, 0), v(10, 0, 0), v(10, 0, 0)], 'link-4');
    for (const p of three) expect(Math.abs(p - 1 / 3)).toBeLessThan(0.02);
  });

  it('deterministic: the same counts and link give the same numbers; four variants in well under a second', () => {
    const counts = [v(500, 120, 300), v(500, 130, 290), v(400, 100, 260), v(450, 150, 250)];
    const started = performance.now();
    const first = probabilitiesBest(counts, 'link-5');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(probabilitiesBest(counts, 'link-5')).toEqual(first);
    expect(first.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 3);
    // Four decimals: a multiple of one draw in 20,000 rounded.
    for (const p of first) expect(Math.round(p * 10_000)).toBe(p * 10_000);
    expect(AB_SAMPLES).toBe(20_000);
  });

  it('seeds: FNV-1a of the id, mulberry32 draws in [0, 1)', () => {
    expect(seedOf('')).toBe(0x811c9dc5);
    expect(seedOf('a')).toBe(0xe40c292c);
    const random = seededRandom(seedOf('x'));
    const draws = Array.from({ length: 1000 }, random);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(seededRandom(7)()).toBe(seededRandom(7)());
  });
});

describe('open rate and auto-promote', () => {
  it('open rate is opened among reported outcomes, null without any', () => {
    expect(openRateOf({ visits: 9, opened: 3, browser: 2, broken: 1 })).toBe(0.5);
    expect(openRateOf({ visits: 9, opened: 0, browser: 0, broken: 0 })).toBeNull();
  });

  it('promotes the likely best once every variant has minVisits and the confidence is reached', () => {
    const counts = [v(100, 30, 70), v(100, 60, 40)];
    const best = probabilitiesBest(counts, 'link-6');
    expect(autoPromoteChoice(counts, best, { minVisits: 100, confidence: 0.95 })).toBe(1);
    // One variant short of visits: nothing yet.
    expect(autoPromoteChoice(counts, best, { minVisits: 101, confidence: 0.95 })).toBeNull();
    // Not sure enough: nothing.
    const close = [v(100, 45, 55), v(100, 55, 45)];
    expect(
      autoPromoteChoice(close, probabilitiesBest(close, 'link-7'), { minVisits: 10, confidence: 0.99 }),
    ).toBeNull();
    expect(
      autoPromoteChoice(close, probabilitiesBest(close, 'link-7'), { minVisits: 10, confidence: 0.9 }),
    ).toBe(1);
  });
});
