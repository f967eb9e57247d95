/**
 * Choosing an escape strategy per cell from real outcomes (issue #18): Thompson sampling on "opened" vs
 * "not opened" over every organization's reported taps. Pure: the numbers come in, an immutable table
 * comes out; the randomness is handed in, so a seed makes it deterministic.
 *
 * Why Thompson sampling: it spends taps on a strategy in proportion to the chance that it is the best
 * one, so a clearly worse strategy soon gets only the exploration floor, while two close strategies keep
 * sharing until the data tells them apart. It needs no tuning beyond a prior (Beta(1, 1): nothing known).
 *
 * The allocation (the probability that each strategy is the best) is estimated off the request path by
 * Monte Carlo over the Beta posteriors, then floored so every allowed strategy keeps at least `floor` of
 * the taps (a webview update can make a losing strategy work again; without exploration nobody would
 * notice). The request path does a table lookup and one uniform draw.
 */

import { ESCAPE_STRATEGIES, type EscapeStrategy } from './types.js';

export const isEscapeStrategy = (value: unknown): value is EscapeStrategy =>
  ESCAPE_STRATEGIES.includes(value as EscapeStrategy);

/** Reported outcomes of one strategy in one cell: `opened` among `outcomes` (opened + browser + broken). */
export interface ArmStats {
  opened: number;
  outcomes: number;
}

/** Outcomes per cell key (see cellKeyOf) and strategy, summed over all organizations. */
export type CellOutcomes = ReadonlyMap<string, ReadonlyMap<EscapeStrategy, ArmStats>>;

export interface BanditOptions {
  /** Every allowed strategy keeps at least this share of the taps (default 0.05). */
  floor?: number;
  /** Outcomes a cell needs (over its allowed strategies) before it leaves the matrix's first choice. */
  warmup?: number;
  /** Joint posterior draws per cell when estimating the allocation (default 1,000). */
  draws?: number;
}

/** One cell's allocation: for `allowed` (in the matrix's order), cumulative shares ending at 1. */
export interface CellAllocation {
  readonly allowed: readonly EscapeStrategy[];
  readonly shares: readonly number[];
  readonly cumulative: readonly number[];
}

export type BanditTable = ReadonlyMap<string, CellAllocation>;

export const DEFAULT_FLOOR = 0.05;
export const DEFAULT_WARMUP = 50;
/** ±1.6 % of standard error on a share near one half: far below what the 5 % floor already blurs. */
const DEFAULT_DRAWS = 1000;

/** The cell's key as the rollups spell it: `inApp|os|platform`, a browser's inApp being ''. */
export const cellKeyOf = (inApp: string | null, os: string, platform: string): string =>
  `${inApp ?? ''}|${os}|${platform}`;

/** A standard normal draw (Box–Muller); 1 - random() keeps the logarithm finite. */
function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A Gamma(shape, 1) draw for shape ≥ 1 (Marsaglia and Tsang, 2000). */
function gamma(shape: number, random: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(random);
    const t = 1 + c * x;
    if (t <= 0) continue;
    const v = t * t * t;
    const u = 1 - random();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A Beta(a, b) draw (a, b ≥ 1) as the ratio of two Gamma draws. */
export function betaSample(a: number, b: number, random: () => number): number {
  const x = gamma(a, random);
  const y = gamma(b, random);
  return x / (x + y);
}

/**
 * The probability that each arm has the highest open rate under its Beta(1 + opened, 1 + not opened)
 * posterior, estimated from `draws` joint draws (ties go to the earlier arm, the matrix's order).
 */
export function probabilityBest(
  arms: readonly ArmStats[],
  random: () => number,
  draws = DEFAULT_DRAWS,
): number[] {
  const wins = arms.map(() => 0);
  for (let i = 0; i < draws; i++) {
    let best = 0;
    let bestValue = -1;
    for (let arm = 0; arm < arms.length; arm++) {
      const { opened, outcomes } = arms[arm] as ArmStats;
      const value = betaSample(1 + opened, 1 + Math.max(0, outcomes - opened), random);
      if (value > bestValue) {
        bestValue = value;
        best = arm;
      }
    }
    wins[best] = (wins[best] ?? 0) + 1;
  }
  return wins.map((count) => count / draws);
}

/** Shares lifted so each is at least `floor` (when `floor × count ≤ 1`), still summing to 1. */
export function withFloor(shares: readonly number[], floor: number): number[] {
  const room = 1 - floor * shares.length;
  if (room < 0) return shares.map(() => 1 / shares.length);
  const total = shares.reduce((sum, share) => sum + share, 0);
  return shares.map((share) => floor + room * (total > 0 ? share / total : 1 / shares.length));
}

function allocation(allowed: readonly EscapeStrategy[], shares: readonly number[]): CellAllocation {
  let running = 0;
  const cumulative = shares.map((share) => {
    running += share;
    return running;
  });
  cumulative[cumulative.length - 1] = 1;
  return Object.freeze({ allowed, shares: Object.freeze(shares), cumulative: Object.freeze(cumulative) });
}

/**
 * One cell's allocation over its `allowed` strategies, or null (the matrix's first choice) when it allows
 * one strategy or has fewer than `warmup` outcomes over the allowed ones.
 */
export function allocateCell(
  allowed: readonly EscapeStrategy[],
  byStrategy: ReadonlyMap<EscapeStrategy, ArmStats> | undefined,
  random: () => number,
  options: BanditOptions = {},
): CellAllocation | null {
  if (allowed.length < 2) return null;
  const arms = allowed.map((strategy) => byStrategy?.get(strategy) ?? { opened: 0, outcomes: 0 });
  if (arms.reduce((sum, arm) => sum + arm.outcomes, 0) < (options.warmup ?? DEFAULT_WARMUP)) return null;
  const shares = withFloor(probabilityBest(arms, random, options.draws), options.floor ?? DEFAULT_FLOOR);
  return allocation(allowed, shares);
}

/** The table for the cells whose allowed strategies are known (the planner's questions, `allowedByCell`). */
export function buildBanditTable(
  outcomes: CellOutcomes,
  allowedByCell: ReadonlyMap<string, readonly EscapeStrategy[]>,
  random: () => number,
  options: BanditOptions = {},
): BanditTable {
  const table = new Map<string, CellAllocation>();
  for (const [key, allowed] of allowedByCell) {
    const entry = allocateCell(allowed, outcomes.get(key), random, options);
    if (entry) table.set(key, entry);
  }
  return table;
}

/** Two allowed lists with the same strategies in the same order. */
export const sameList = (a: readonly EscapeStrategy[], b: readonly EscapeStrategy[]) =>
  a === b || (a.length === b.length && a.every((value, i) => value === b[i]));

/**
 * The strategy for one visit: one uniform draw against the cell's cumulative shares. Undefined (the
 * matrix's first choice) when the cell has no entry or its entry was built for other allowed strategies.
 */
export function drawStrategy(
  table: BanditTable,
  key: string,
  allowed: readonly EscapeStrategy[],
  random: () => number,
): EscapeStrategy | undefined {
  const entry = table.get(key);
  if (!entry || !sameList(entry.allowed, allowed)) return undefined;
  const u = random();
  const { cumulative } = entry;
  for (let i = 0; i < cumulative.length; i++) if (u < (cumulative[i] as number)) return entry.allowed[i];
  return entry.allowed[entry.allowed.length - 1];
}
