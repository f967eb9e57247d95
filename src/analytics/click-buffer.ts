import type { Store } from '../store/database.js';
import { type AnalyticsRepo, createAnalyticsRepo } from './repo.js';

/** One visit to a hosted link, as the redirect saw it. */
export interface ClickInput {
  linkId: string;
  orgId: string;
  /** Epoch milliseconds. */
  at: number;
  /** A bot or link-preview fetch: stored apart, never counted as a click. */
  bot: boolean;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: 'ios' | 'android' | 'desktop' | 'other';
  sourceApp: string | null;
  referrerHost: string | null;
  platformKey: string | null;
  tapId: string | null;
}

export interface BufferLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface ClickBufferOptions {
  store: Store;
  /** ANALYTICS=off: `record` does nothing and nothing is ever written. */
  enabled?: boolean;
  flushIntervalMs?: number;
  /** Rows per batch (one transaction each); reaching it also starts a flush before the tick. */
  maxRows?: number;
  /**
   * Rows per batch while a backlog of two batches or more waits (default 5,000; with only `maxRows` given,
   * `maxRows`). A transaction's cost is mostly the index and rollup pages it dirties, one or two per link
   * touched, and a bigger batch touches few more links: under a sustained load this is what lets the
   * writer keep up instead of reaching `maxBuffered`.
   */
  backlogRows?: number;
  /** Memory bound while the store is failing: beyond it the oldest rows are dropped and counted. */
  maxBuffered?: number;
  logger: BufferLogger;
  /** For tests: the writer (defaults to the store's analytics repo). */
  write?: AnalyticsRepo['writeClicks'];
}

export interface ClickBufferStats {
  pending: number;
  written: number;
  dropped: number;
  failedFlushes: number;
}

/**
 * Clicks leave the request path here: `record` only appends to an array, and a timer writes batches.
 * What a crash can lose is bounded: the rows of the last `flushIntervalMs` (or at most `maxRows` plus one
 * batch in flight, `backlogRows` when behind), plus whatever piled up while the store was failing (at most
 * `maxBuffered`). A clean shutdown (`stop`) writes everything.
 */
export function createClickBuffer(options: ClickBufferOptions) {
  const flushIntervalMs = options.flushIntervalMs ?? 500;
  const maxRows = options.maxRows ?? 1000;
  const backlogRows = Math.max(
    options.backlogRows ?? (options.maxRows === undefined ? 5000 : maxRows),
    maxRows,
  );
  const maxBuffered = Math.max(options.maxBuffered ?? 100_000, backlogRows);
  const { logger } = options;
  const write = options.write ?? createAnalyticsRepo(options.store).writeClicks;
  const enabled = options.enabled ?? true;

  let pending: ClickInput[] = [];
  let inFlight: Promise<void> | null = null;
  let kicked = false;
  let failing = false;
  let timer: NodeJS.Timeout | null = null;
  const stats = { written: 0, dropped: 0, failedFlushes: 0 };

  /** Writes batches until the buffer is empty or the store fails; a failed batch goes back to the front. */
  async function drain(): Promise<void> {
    for (let first = true; pending.length > 0; first = false) {
      // SQLite answers synchronously: without a macrotask between batches a backlog would hold the event
      // loop, and the redirects with it, until it is written.
      if (!first) await new Promise((resolve) => setImmediate(resolve));
      const batch = pending.slice(0, pending.length >= 2 * maxRows ? backlogRows : maxRows);
      pending = pending.slice(batch.length);
      try {
        await write(batch);
        stats.written += batch.length;
        failing = false;
      } catch (error) {
        pending = batch.concat(pending);
        stats.failedFlushes += 1;
        failing = true;
        logger.error({ err: error, pending: pending.length }, 'click batch not written; retrying next tick');
        return;
      }
    }
  }

  /** Serialised: one drain at a time, and a caller arriving mid-drain waits for one that covers its rows. */
  function flush(): Promise<void> {
    if (inFlight) return inFlight.then(() => (pending.length > 0 && !failing ? flush() : undefined));
    inFlight = drain().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  return {
    /** Synchronous, O(1) amortised, never throws: the redirect calls it on every visit. */
    record(click: ClickInput): void {
      if (!enabled) return;
      try {
        pending.push(click);
        if (pending.length > maxBuffered) {
          // Drop a tenth at once so a long outage costs one copy per 10% of the cap, not one per click.
          const drop = pending.length - maxBuffered + Math.ceil(maxBuffered / 10);
          pending = pending.slice(drop);
          stats.dropped += drop;
          logger.warn({ dropped: stats.dropped, maxBuffered }, 'click buffer full: oldest clicks dropped');
        }
        if (pending.length >= maxRows && !kicked && !inFlight && !failing && timer) {
          kicked = true;
          setImmediate(() => {
            kicked = false;
            void flush();
          });
        }
      } catch {
        // A click is never worth failing a redirect.
      }
    },

    flush,

    start(): void {
      if (timer) return;
      timer = setInterval(() => {
        failing = false;
        if (!inFlight) void flush();
      }, flushIntervalMs);
      timer.unref();
    },

    /** Stops the timer and writes everything left, retrying a failing store a few times before giving up. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      for (let attempt = 0; attempt < 5; attempt++) {
        failing = false;
        await flush();
        if (pending.length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
      }
      logger.error({ lost: pending.length }, 'clicks not written at shutdown');
    },

    stats(): ClickBufferStats {
      return { pending: pending.length, ...stats };
    },
  };
}

export type ClickBuffer = ReturnType<typeof createClickBuffer>;
