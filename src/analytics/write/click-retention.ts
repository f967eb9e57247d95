import type { Store } from '../../store/database.js';
import type { ClickPartitions } from './click-partitions.js';
import { ANALYTICS_TABLES, createRetentionRepo } from './retention-repo.js';

/**
 * The raw clicks' housekeeping, off the request path: at start and then every `intervalMs`, PostgreSQL
 * partitions for this month and the next two, and with CLICK_RETENTION_DAYS set, raw clicks older than the
 * window removed (whole partitions on PostgreSQL, small batches on SQLite). Rollups are never touched, so
 * every count stays; only the clicks list and the export lose what is older than the window. Several
 * instances may run it at once: each step is idempotent.
 *
 * With `store`, each pass also erases the analytics rows of organizations erased in the last
 * ERASED_SWEEP_DAYS: deleting an account erases them in its transaction, but clicks the writer still held
 * (or spilled during an outage) and outcome beacons arriving after can land rows later (issue #30).
 *
 * With ANALYTICS_URL (`clickhouse`), the same pass does both in ClickHouse too: an erased organization's
 * rows deleted (a mutation per table that still has some), and raw clicks' months past the window dropped
 * whole. The main database's steps still run: rows written there before the move are erased and expire
 * as before.
 */
export interface ClickRetentionOptions {
  partitions: ClickPartitions;
  /** Where erased organizations' late analytics rows are found and deleted; without it, not swept. */
  store?: Store;
  /** ANALYTICS_URL's ClickHouse (clickhouse/live.ts): swept and trimmed as well. */
  clickhouse?: {
    eraseOrganization(orgId: string): Promise<string[]>;
    dropClicksBefore(cutoffMs: number): Promise<string[]>;
  };
  /** Null: keep every click (the default). */
  retentionDays: number | null;
  now: () => number;
  intervalMs?: number;
  logger: { info(details: object, message: string): void; error(details: object, message: string): void };
}

const DAY_MS = 86_400_000;
/** Late rows come from the writer's buffer (a second), its spill and held outcomes (an outage): a month covers both. */
const ERASED_SWEEP_DAYS = 30;
/** Rows deleted per statement: a few milliseconds of lock at most, and a yield between two. */
const SWEEP_BATCH = 500;

/**
 * Every analytics row left for organizations erased since `sinceIso`, in batches that yield between them.
 * Answers how many rows went per table (only tables that had some).
 */
export async function sweepErasedOrganizations(
  store: Store,
  sinceIso: string,
): Promise<Record<string, number>> {
  const repo = createRetentionRepo(store);
  const erased = await repo.erasedSince(sinceIso);
  const swept: Record<string, number> = {};
  for (const { id } of erased) {
    for (const table of ANALYTICS_TABLES) {
      for (;;) {
        const deleted = await repo.deleteBatch(table, id, SWEEP_BATCH);
        if (deleted > 0) swept[table.table] = (swept[table.table] ?? 0) + deleted;
        if (deleted < SWEEP_BATCH) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  return swept;
}

export function createClickRetention(options: ClickRetentionOptions) {
  const { partitions, retentionDays, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;

  async function pass(): Promise<void> {
    const now = options.now();
    await partitions.ensureAhead(now);
    if (options.store) {
      const swept = await sweepErasedOrganizations(
        options.store,
        new Date(now - ERASED_SWEEP_DAYS * DAY_MS).toISOString(),
      );
      if (Object.keys(swept).length > 0) logger.info({ swept }, 'analytics of erased organizations removed');
      // ClickHouse away fails its own steps only: the main database's still run, the next pass retries.
      if (options.clickhouse)
        await sweepClickhouse(options.store, options.clickhouse, now).catch((error: unknown) =>
          logger.error({ err: error }, 'ClickHouse sweep of erased organizations failed'),
        );
    }
    if (retentionDays === null) return;
    const cutoff = now - retentionDays * DAY_MS;
    const dropped = await partitions.dropBefore(cutoff);
    if (dropped.partitions.length > 0 || dropped.blocks > 0)
      logger.info({ ...dropped, retentionDays }, 'raw clicks past CLICK_RETENTION_DAYS removed');
    const months =
      (await options.clickhouse?.dropClicksBefore(cutoff).catch((error: unknown) => {
        logger.error({ err: error }, 'ClickHouse retention pass failed');
        return [];
      })) ?? [];
    if (months.length > 0)
      logger.info(
        { partitions: months, retentionDays },
        'ClickHouse raw clicks past CLICK_RETENTION_DAYS dropped',
      );
  }

  /** Erased organizations' rows in ClickHouse: a deletion queued per table that still has some. */
  async function sweepClickhouse(
    store: Store,
    clickhouse: NonNullable<ClickRetentionOptions['clickhouse']>,
    now: number,
  ): Promise<void> {
    const erased = await createRetentionRepo(store).erasedSince(
      new Date(now - ERASED_SWEEP_DAYS * DAY_MS).toISOString(),
    );
    for (const { id } of erased) {
      const tables = await clickhouse.eraseOrganization(id);
      if (tables.length > 0)
        logger.info({ orgId: id, tables }, 'ClickHouse analytics of an erased organization deleted');
    }
  }

  /** One pass at a time; a failure is logged and the next tick tries again. */
  function run(): Promise<void> {
    running ??= pass()
      .catch((error: unknown) => logger.error({ err: error }, 'click retention pass failed'))
      .finally(() => {
        running = null;
      });
    return running;
  }

  return {
    run,
    start(): void {
      if (timer) return;
      timer = setInterval(() => void run(), options.intervalMs ?? 3_600_000);
      timer.unref();
      void run();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
