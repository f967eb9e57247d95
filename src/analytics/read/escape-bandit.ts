import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  allocateCell,
  type BanditOptions,
  type BanditTable,
  type CellAllocation,
  type CellOutcomes,
  drawStrategy,
  sameList,
} from '../../core/escape/bandit.js';
import type { EscapeStrategy } from '../../core/escape/index.js';

/**
 * The bandit as the hosted redirect uses it: a table of per-cell allocations rebuilt off the request path
 * (every `refreshMs`, at most once a minute) from every organization's outcomes of the last `windowDays`,
 * and swapped in whole. A visit does a map lookup and one random draw; it never waits for the store.
 *
 * The allowed strategies of a cell are the planner's (the escape matrix's), learnt from the questions the
 * visits ask: a cell first asked about is remembered and gets a table entry at the next refresh (until
 * then, and until it has `warmup` outcomes, the matrix's first choice). When the store cannot be read the
 * last table stays: a database outage never changes what a visit gets, let alone breaks it.
 */

export interface EscapeBanditDeps {
  /** Every organization's outcomes per cell and strategy over the last `days`. */
  readOutcomes: (days: number) => Promise<CellOutcomes>;
  /** For the hot path's draw and the Monte Carlo (seeded in tests). */
  random: () => number;
  logger: { warn(details: object, message: string): void };
  refreshMs?: number;
  windowDays?: number;
  /** Cells remembered at most (each is one in-app browser × OS × platform). */
  maxCells?: number;
  options?: BanditOptions;
}

export const BANDIT_REFRESH_MS = 60_000;
export const BANDIT_WINDOW_DAYS = 30;
/** The longest the table's build holds the event loop at once. */
const SLICE_MS = 4;

export function createEscapeBandit(deps: EscapeBanditDeps) {
  const refreshMs = Math.max(BANDIT_REFRESH_MS, deps.refreshMs ?? BANDIT_REFRESH_MS);
  const windowDays = deps.windowDays ?? BANDIT_WINDOW_DAYS;
  const maxCells = deps.maxCells ?? 20_000;
  /** Written by visits (a new cell), read by the refresh. */
  const allowedByCell = new Map<string, readonly EscapeStrategy[]>();
  let table: BanditTable = new Map();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<boolean> | null = null;
  let failing = false;

  /**
   * The Monte Carlo costs about a millisecond per cell, and this runs on the thread that serves the
   * redirects: the table is built a slice of a few milliseconds at a time, yielding to the event loop
   * between slices, and swapped in whole at the end.
   */
  async function build(outcomes: CellOutcomes): Promise<BanditTable> {
    const next = new Map<string, CellAllocation>();
    let slice = performance.now();
    for (const [key, allowed] of [...allowedByCell]) {
      const entry = allocateCell(allowed, outcomes.get(key), deps.random, deps.options);
      if (entry) next.set(key, entry);
      if (performance.now() - slice > SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    return next;
  }

  async function rebuild(): Promise<boolean> {
    try {
      const outcomes = await deps.readOutcomes(windowDays);
      table = await build(outcomes);
      if (failing) deps.logger.warn({}, 'escape bandit: outcomes read again');
      failing = false;
      return true;
    } catch (error) {
      // One line per outage; the last table keeps serving.
      if (!failing)
        deps.logger.warn({ err: error }, 'escape bandit: outcomes not read, keeping the last table');
      failing = true;
      return false;
    }
  }

  return {
    /**
     * The strategy for a visit in cell `key` (escape-cells.ts cellKeyOf) among `allowed`, or undefined for
     * the matrix's first choice. Synchronous and never throws.
     */
    choose(key: string, allowed: readonly EscapeStrategy[]): EscapeStrategy | undefined {
      if (allowed.length < 2) return undefined;
      const known = allowedByCell.get(key);
      // A new cell, or the matrix changed its allowed list (an operator's override): learnt for the next
      // refresh. Otherwise a comparison of a few strings, nothing written.
      if (known === undefined ? allowedByCell.size < maxCells : !sameList(known, allowed))
        allowedByCell.set(key, [...allowed]);
      return drawStrategy(table, key, allowed, deps.random);
    },

    /** Rebuilds the table now (the timer, tests); false when the outcomes could not be read. */
    refresh(): Promise<boolean> {
      running ??= rebuild().finally(() => {
        running = null;
      });
      return running;
    },

    start(): void {
      if (timer) return;
      timer = setInterval(() => void this.refresh(), refreshMs);
      timer.unref();
      void this.refresh();
    },

    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },

    /** The current table (read-only), for tests and metrics. */
    table: (): BanditTable => table,

    /** Cells the visits asked about (bounded by `maxCells`), and cells the table allocates. */
    stats: () => ({ cells: allowedByCell.size, allocated: table.size, failing }),
  };
}

export type EscapeBandit = ReturnType<typeof createEscapeBandit>;
