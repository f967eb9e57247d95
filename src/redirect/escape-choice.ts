import {
  type ChooseStrategy,
  cellKeyOf,
  type EscapeStrategy,
  isEscapeStrategy,
} from '../core/escape/bandit.js';
import type { EscapePlan } from '../core/pages/escape-plan.js';

/**
 * The seam between the escape planner and the bandit (analytics/escape-bandit.ts), and the one place that
 * names the strategy of a plan for the tap token and the click.
 */

/**
 * The strategy a plan uses. The matrix's plans say it (`strategy`); the planner before the matrix is
 * read from its primary hand-off, or its instructions, or nothing at all.
 */
export function strategyOf(plan: EscapePlan): EscapeStrategy {
  const planned = (plan as { strategy?: EscapeStrategy }).strategy;
  if (planned !== undefined) return planned;
  const kind = plan.primary?.kind;
  if (kind !== undefined && isEscapeStrategy(kind)) return kind;
  return plan.instructions ? 'instructions' : 'none';
}

export interface StrategyPicker {
  choose(cellKey: string, allowed: readonly EscapeStrategy[]): EscapeStrategy | undefined;
}

/**
 * The planner's `choose` for destinations of one platform. The bandit learns per in-app browser × OS ×
 * the destination's platform (the cells the analytics table shows), whatever granularity the matrix row
 * has, so the platform comes from the destination. One function per platform, made once.
 */
export function createEscapeChooser(picker: StrategyPicker): (platformKey: string) => ChooseStrategy {
  const byPlatform = new Map<string, ChooseStrategy>();
  return (platformKey) => {
    let choose = byPlatform.get(platformKey);
    if (!choose) {
      choose = (cell, allowed) =>
        allowed.length < 2 ? undefined : picker.choose(cellKeyOf(cell.inApp, cell.os, platformKey), allowed);
      byPlatform.set(platformKey, choose);
    }
    return choose;
  };
}
