import type { CellOutcomes } from '../../core/escape/bandit.js';
import type { OrgContext } from '../../tenancy/context.js';
import { ALL_ORGS, CELL, CELL_OUTCOME, type CellRow, cellOutcomes, cellRows } from '../escape-cells.js';
import type { DayRange, Scope } from '../model.js';
import type { RollupReads } from './rollup-reads.js';

/**
 * The reads of the per-cell rollups: an organization's table (GET /v1/analytics/escape and its /api twin)
 * and every organization's outcomes (the bandit's refresh). Both answer from the rollups alone.
 */

export interface EscapeCellQuery {
  days?: number | undefined;
  linkId?: string | undefined;
  folderId?: string | undefined;
  tag?: string | undefined;
}

export interface EscapeCells {
  configured: boolean;
  sampled: true;
  days: number;
  cells: CellRow[];
  upgrade?: string;
}

export interface EscapeCellReadsDeps {
  repo: Pick<RollupReads, 'sums'>;
  links: { get(ctx: OrgContext, id: string): Promise<unknown> };
  configured: boolean;
  /** The `days` whole UTC days ending today, clamped to 1..90 (the service's window). */
  window: (days: number) => DayRange;
  /** The plan's refusal text, as the other analytics reads word it. */
  upgrade: string;
}

export function createEscapeCellReads(deps: EscapeCellReadsDeps) {
  const { repo, configured } = deps;
  return {
    /** Taps and outcomes per cell of the organization (or a link, folder or tag); hero and up. */
    async escapeCells(ctx: OrgContext, query: EscapeCellQuery): Promise<EscapeCells> {
      const range = deps.window(query.days ?? 30);
      const days = range.to - range.from + 1;
      // Another organization's link answers not_found, before the plan is looked at (as /v1/analytics).
      if (query.linkId) await deps.links.get(ctx, query.linkId);
      const head = { configured, sampled: true as const, days };
      if (!ctx.features.fullAnalytics) return { ...head, cells: [], upgrade: deps.upgrade };
      if (!configured) return { ...head, cells: [] };
      const scope: Scope = {
        orgId: ctx.orgId,
        linkId: query.linkId,
        folderId: query.folderId,
        tag: query.tag,
      };
      return { ...head, cells: cellRows(await repo.sums(scope, [CELL, CELL_OUTCOME], range)) };
    },

    /** Every organization's outcomes per cell and strategy over the last `days` (the bandit's input). */
    async allOrgCellOutcomes(days: number): Promise<CellOutcomes> {
      if (!configured) return new Map();
      return cellOutcomes(await repo.sums({ orgId: ALL_ORGS }, [CELL_OUTCOME], deps.window(days)));
    },
  };
}

export type EscapeCellReads = ReturnType<typeof createEscapeCellReads>;
