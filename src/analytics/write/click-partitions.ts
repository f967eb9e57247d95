import type { Store } from '../../store/database.js';
import { createPartitionRepo } from './partition-repo.js';

/**
 * The raw clicks' growth (issue 19). PostgreSQL: `click_blocks` is partitioned by month of `first_at`
 * (migration 017); partitions are created ahead (the retention job) and on demand (the writer, for a
 * month it has not seen), and retention drops whole months past the window. SQLite: retention deletes old
 * blocks a small batch at a time. Neither ever touches a rollup: counts stay whole after raw clicks go.
 * The SQL is in partition-repo.ts.
 */

const PARTITION = /^click_blocks_p(\d{4})_(\d{2})$/;
/** Blocks deleted per SQLite statement: a few milliseconds of lock at most. */
const SQLITE_BATCH = 500;

export interface MonthPartition {
  name: string;
  /** Epoch milliseconds, from included, to excluded. */
  from: number;
  to: number;
}

export function monthOf(ms: number): MonthPartition {
  const date = new Date(ms);
  const from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const to = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  const mm = String(date.getUTCMonth() + 1).padStart(2, '0');
  return { name: `click_blocks_p${date.getUTCFullYear()}_${mm}`, from, to };
}

export function createClickPartitions(store: Store) {
  const repo = createPartitionRepo(store);
  const postgres = store.dialect === 'postgres';
  /** Months known to have their partition (or tried): the writer asks once per month, not per batch. */
  const known = new Set<string>();

  /** Creates the month's partition if missing; false when it could not be (rows then go to DEFAULT). */
  async function ensure(month: MonthPartition): Promise<boolean> {
    if (!postgres || known.has(month.name)) return true;
    known.add(month.name);
    try {
      await repo.createPartition(month);
      return true;
    } catch {
      // Another instance created it at the same moment (it exists now), or DEFAULT already holds rows of
      // that month (they stay there, and are kept or dropped by retention like any other).
      return repo.exists(month.name);
    }
  }

  return {
    ensure,

    /** Before a batch: every month its blocks start in has a partition (one statement per new month). */
    async ensureFor(firstAts: Iterable<number>): Promise<void> {
      if (!postgres) return;
      const months = new Map<string, MonthPartition>();
      for (const at of firstAts) {
        const month = monthOf(at);
        if (!known.has(month.name)) months.set(month.name, month);
      }
      for (const month of months.values()) await ensure(month);
    },

    /** This month and the next `ahead` months. */
    async ensureAhead(nowMs: number, ahead = 2): Promise<void> {
      const date = new Date(nowMs);
      for (let i = 0; i <= ahead; i++)
        await ensure(monthOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + i, 1)));
    },

    /**
     * Raw clicks before `cutoffMs` go: on PostgreSQL every month partition that ends by then (dropped
     * whole) and DEFAULT's old rows; on SQLite the oldest blocks, in small batches that yield between
     * them. Returns what went, for the log.
     */
    async dropBefore(cutoffMs: number): Promise<{ partitions: string[]; blocks: number }> {
      if (postgres) {
        const partitions = (await listPartitions())
          .filter((part) => part.to <= cutoffMs)
          .map((part) => part.name);
        for (const name of partitions) {
          await repo.dropPartition(name);
          known.delete(name);
        }
        return { partitions, blocks: await repo.deleteDefaultBefore(cutoffMs) };
      }
      return { partitions: [], blocks: await deleteOldSqlite(cutoffMs) };
    },
  };

  /** The month partitions of `click_blocks` in the store's schema. */
  async function listPartitions(): Promise<MonthPartition[]> {
    return (await repo.partitionNames()).flatMap((name) => {
      const match = PARTITION.exec(name);
      return match ? [monthOf(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1))] : [];
    });
  }

  /**
   * Oldest ids first: ids grow with time, so old blocks sit at the start of the primary key and a batch
   * that finds none old means the rest are newer (a block replayed late from the spill may wait for the
   * next pass, or stay until newer ones go: it is never wrongly removed).
   */
  async function deleteOldSqlite(cutoffMs: number): Promise<number> {
    let deleted = 0;
    let after = 0;
    for (;;) {
      const rows = await repo.blocksAfter(after, SQLITE_BATCH);
      const old = rows.filter((row) => Number(row.last_at) < cutoffMs).map((row) => Number(row.id));
      if (old.length > 0) deleted += await repo.deleteBlocks(old);
      if (old.length === 0 || rows.length < SQLITE_BATCH) return deleted;
      after = Number(rows.at(-1)?.id ?? after);
      // Off the request path: let the event loop serve what waits between two batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

export type ClickPartitions = ReturnType<typeof createClickPartitions>;
