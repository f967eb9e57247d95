import type { ClickPartitions } from '../analytics/click-partitions.js';

/**
 * The raw clicks' housekeeping, off the request path: at start and then every `intervalMs`, PostgreSQL
 * partitions for this month and the next two, and with CLICK_RETENTION_DAYS set, raw clicks older than the
 * window removed (whole partitions on PostgreSQL, small batches on SQLite). Rollups are never touched, so
 * every count stays; only the clicks list and the export lose what is older than the window. Several
 * instances may run it at once: each step is idempotent.
 */
export interface ClickRetentionOptions {
  partitions: ClickPartitions;
  /** Null: keep every click (the default). */
  retentionDays: number | null;
  now: () => number;
  intervalMs?: number;
  logger: { info(details: object, message: string): void; error(details: object, message: string): void };
}

const DAY_MS = 86_400_000;

export function createClickRetention(options: ClickRetentionOptions) {
  const { partitions, retentionDays, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;

  async function pass(): Promise<void> {
    const now = options.now();
    await partitions.ensureAhead(now);
    if (retentionDays === null) return;
    const dropped = await partitions.dropBefore(now - retentionDays * DAY_MS);
    if (dropped.partitions.length > 0 || dropped.blocks > 0)
      logger.info({ ...dropped, retentionDays }, 'raw clicks past CLICK_RETENTION_DAYS removed');
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
