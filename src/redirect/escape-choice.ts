import { cellKeyOf } from '../core/escape/bandit.js';
import type { EscapeStrategy } from '../core/escape/index.js';
import type { ChooseStrategy } from '../core/pages/escape-plan.js';

/**
 * The seam between the escape planner (the matrix) and the bandit (analytics/escape-bandit.ts): the
 * planner's `choose`, per destination platform.
 */

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
      choose = chooserForPlatform(picker, platformKey);
      byPlatform.set(platformKey, choose);
    }
    return choose;
  };
}

/**
 * The cell keys are built once and reused: the same string object every visit keeps its hash, where a
 * key concatenated per visit cost a fresh hash in each map it is looked up in (about half the choice).
 */
function chooserForPlatform(picker: StrategyPicker, platformKey: string): ChooseStrategy {
  const keys = new Map<string | null, Map<string, string>>();
  return (cell, allowed) => {
    if (allowed.length < 2) return undefined;
    let byOs = keys.get(cell.inApp);
    if (!byOs) {
      byOs = new Map();
      keys.set(cell.inApp, byOs);
    }
    let key = byOs.get(cell.os);
    if (key === undefined) {
      key = cellKeyOf(cell.inApp, cell.os, platformKey);
      byOs.set(cell.os, key);
    }
    return picker.choose(key, allowed);
  };
}
