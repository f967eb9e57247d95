import type { DayRange } from '../model.js';
import type { MovedLink } from './group-history.js';
import { dayOf, literal, type RawSql, raw } from './literal.js';

/**
 * What a group's rollups miss or hold too much of: its moved links. A click is counted in the groups
 * its link was stamped with on the click's day (group-history.ts), so `group_rollups` is right for every
 * link that never changed group. For one that did, a read of the group adds, per day of the window, its
 * per-link rows times (1 if it is in the group now) - (1 if its stamp for that day had the group): +1
 * for the days before it joined, -1 for the days it was counted in a group it has since left, 0 else.
 * A move writes nothing to ClickHouse; it costs the reads of that group its link's rows of those days.
 */

/** A moved link's days (both ends included) whose per-link rows count `coef` times in the group. */
export interface Correction {
  linkId: string;
  from: number;
  to: number;
  coef: 1 | -1;
}

/** The corrections of `grp` over `window`, from its moved links (none for a group no link left or joined). */
export function correctionsOf(moved: readonly MovedLink[], grp: string, window: DayRange): Correction[] {
  const out: Correction[] = [];
  for (const link of moved) {
    const now = link.member ? 1 : 0;
    link.segments.forEach((segment, i) => {
      const coef = now - (segment.groups.includes(grp) ? 1 : 0);
      if (coef === 0) return;
      const next = link.segments[i + 1];
      const from = Math.max(segment.from, window.from);
      const to = Math.min(next ? next.from - 1 : window.to, window.to);
      if (from <= to) out.push({ linkId: link.linkId, from, to, coef: coef as 1 | -1 });
    });
  }
  return out;
}

/**
 * The corrections as SQL over a per-link table: the filter that reads only their links and days, and the
 * weight of a row (`multiIf` of each link's days, 0 elsewhere). Empty corrections have none.
 */
export function correctionSql(
  orgId: string,
  corrections: readonly Correction[],
): { where: RawSql; weight: RawSql } {
  const ids = [...new Set(corrections.map((c) => c.linkId))];
  const from = Math.min(...corrections.map((c) => c.from));
  const to = Math.max(...corrections.map((c) => c.to));
  const arms = corrections.map(
    (c) =>
      `link_id = ${literal(c.linkId)} AND day >= ${dayOf(c.from).text} AND day <= ${dayOf(c.to).text}, ${c.coef}`,
  );
  return {
    where: raw(
      `org_id = ${literal(orgId)} AND link_id IN ${literal(ids)} AND day >= ${dayOf(from).text} AND day <= ${dayOf(to).text}`,
    ),
    weight: raw(`toInt64(multiIf(${arms.join(', ')}, 0))`),
  };
}
