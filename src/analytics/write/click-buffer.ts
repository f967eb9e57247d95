import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/database.js';
import type { ClickInput } from './click-input.js';
import { takeLane } from './click-lanes.js';
import type { ClickSpill } from './click-spill.js';
import { createWriteRepo, type WriteRepo } from './repo.js';

export type { ClickInput } from './click-input.js';

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
   * Rows per batch while a backlog of two batches or more waits (default 100,000 on PostgreSQL, 5,000 on
   * SQLite; with only `maxRows` given, `maxRows`). A transaction's cost is mostly its rollup upserts, and
   * clicks spread over many links share few: over 10,000 links, 5,000 such clicks made 6.2 rollup rows a
   * click, 50,000 made 3.0, 200,000 made 1.5. A PostgreSQL batch holds one of two lanes of links, so its
   * 100,000 clicks share rows as 200,000 over every link did. Under a sustained load this is what lets the
   * writer keep up instead of reaching `maxBuffered`: the busier the backlog, the fewer rows a click costs.
   * SQLite commits synchronously, so its batches stay short enough not to hold the loop.
   */
  backlogRows?: number;
  /**
   * Memory bound (default 400,000 on PostgreSQL, two backlog batches; 100,000 on SQLite): beyond it the
   * oldest rows go to the spill (or, without one, are dropped and counted). While the store fails, every
   * tick moves what is pending to the spill anyway.
   */
  maxBuffered?: number;
  /**
   * Batches written at once (default 2 on PostgreSQL, 1 on SQLite), each from its own lane of links
   * (click-lanes.ts): one lane's batch is folded and packed here while the database upserts another's,
   * and the database writes them on separate connections without waiting on each other's row locks. Over
   * 10,000 links a 200,000-click batch spent 2.2 s in this thread and 3.9 s in PostgreSQL. SQLite writes
   * synchronously: one at a time.
   */
  parallelBatches?: number;
  /** Where clicks go while the store fails (click-spill.ts); replayed exactly once when it is back. */
  spill?: ClickSpill;
  logger: BufferLogger;
  /**
   * The writer, instead of the store's analytics repo (ANALYTICS_URL's ClickHouse store, or a test's).
   * False: that batch id was written before.
   */
  write?: (clicks: readonly ClickInput[], batchId?: string) => Promise<unknown>;
  /** Forgets batch ids written before a time, beside `write` (without either, the repo's pruning). */
  prune?: (beforeMs: number) => Promise<unknown>;
  /**
   * Every batch under an id (default: on PostgreSQL only). A store reached over a network (ClickHouse)
   * can lose the answer of a write it took, as PostgreSQL can lose a commit's.
   */
  idEveryBatch?: boolean;
}

export interface ClickBufferStats {
  /** Clicks in memory (waiting, or a failed batch to retry). */
  pending: number;
  written: number;
  dropped: number;
  failedFlushes: number;
  /** Clicks in spill files, waiting for the store. */
  spilled: number;
  /** Bytes of spill files. */
  spillBytes: number;
}

/** Batch ids older than this are pruned: a replay comes within days of its write, not weeks. */
const BATCH_ID_RETENTION_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

interface Batch {
  clicks: ClickInput[];
  /** Its lane of links (click-lanes.ts); a retry goes back to it. Spilled segments hold every lane's. */
  lane: number;
  /** Written at most once under this id (click_batches). */
  id: string | undefined;
  /** Set when the batch is a spilled segment: its file goes once the batch is written. */
  segment: boolean;
}

/**
 * Clicks leave the request path here: `record` only appends to an array, and a timer writes batches.
 * What a crash can lose is bounded: the rows of the last `flushIntervalMs` (or at most `maxRows` plus one
 * batch in flight, `backlogRows` when behind); while the store fails (with a spill), one tick of rows,
 * everything else being in the spill. A clean shutdown (`stop`) writes everything, or spills what
 * the store will not take.
 *
 * Exactly once: on PostgreSQL every batch carries an id recorded in its own transaction, so a batch
 * retried after a commit whose answer was lost (the connection cut mid-commit) is not counted twice; a
 * failed batch is retried as it was, under the same id. Spilled segments carry an id on both dialects.
 */
export function createClickBuffer(options: ClickBufferOptions) {
  const flushIntervalMs = options.flushIntervalMs ?? 500;
  const maxRows = options.maxRows ?? 1000;
  const postgres = options.store?.dialect === 'postgres';
  const backlogRows = Math.max(
    options.backlogRows ?? (options.maxRows === undefined ? (postgres ? 100_000 : 5000) : maxRows),
    maxRows,
  );
  const maxBuffered = Math.max(options.maxBuffered ?? (postgres ? 400_000 : 100_000), backlogRows);
  const { logger, spill } = options;
  const repo = options.write ? null : createWriteRepo(options.store);
  const write = options.write ?? (repo as WriteRepo).writeClicks;
  const pruneBatchIds = options.prune ?? repo?.pruneBatchIds;
  const enabled = options.enabled ?? true;
  // SQLite commits are not ambiguous (no connection to lose): its batches need no id, only segments.
  const idEveryBatch = options.idEveryBatch ?? postgres;
  const parallel = Math.max(1, options.parallelBatches ?? (postgres ? 2 : 1));

  let pending: ClickInput[] = [];
  /** Batches that failed, retried first and as they were (same clicks, same id). */
  let retries: Batch[] = [];
  let inFlight: Promise<void> | null = null;
  let kicked = false;
  let failing = false;
  /** Set from the first failed batch until one is written again: one log line each way per outage. */
  let outage = false;
  let timer: NodeJS.Timeout | null = null;
  let lastPrune = 0;
  const stats = { written: 0, dropped: 0, failedFlushes: 0 };

  /**
   * The next batch of a lane: its failed one first, then (lane 0) spilled segments, then its share of what
   * is pending.
   */
  function nextBatch(lane: number): Batch | null {
    const retry = retries.findIndex((batch) => batch.lane === lane);
    if (retry !== -1) return retries.splice(retry, 1)[0] as Batch;
    const segment = lane === 0 ? spill?.next() : undefined;
    if (segment) {
      if (segment.unreadable > 0)
        logger.warn({ segment: segment.id, lost: segment.unreadable }, 'spilled clicks unreadable');
      return { clicks: segment.clicks, lane, id: segment.id, segment: true };
    }
    if (pending.length === 0) return null;
    const limit = pending.length >= 2 * maxRows ? backlogRows : maxRows;
    const { taken, rest } = takeLane(pending, lane, parallel, limit);
    if (taken.length === 0) return null;
    pending = rest;
    return { clicks: taken, lane, id: idEveryBatch ? `b-${randomUUID()}` : undefined, segment: false };
  }

  /**
   * Writes one batch; false when it failed (then kept to retry, or left in its spill segment). The batch
   * is prepared (folded, packed) synchronously before the write's first wait, so a second batch started
   * right after runs its preparation while the database works on the first.
   */
  async function writeBatch(batch: Batch): Promise<boolean> {
    try {
      const applied = batch.clicks.length === 0 ? false : await write(batch.clicks, batch.id);
      // False: this id was committed before (a replay after a crash, a retry after a lost answer).
      if (applied !== false) stats.written += batch.clicks.length;
      if (batch.segment) spill?.remove(batch.id as string);
      if (outage) logger.warn({ spilled: spill?.stats().clicks ?? 0 }, 'click writes resumed');
      outage = false;
      return true;
    } catch (error) {
      if (!batch.segment) retries.push(batch);
      stats.failedFlushes += 1;
      if (!outage) {
        logger.error({ err: error, pending: pendingCount() }, 'click batch not written; retrying every tick');
      }
      outage = true;
      return false;
    }
  }

  /**
   * Writes batches, one per lane at once, until there is nothing left or the store fails; a failed batch
   * is kept as it was, and no new batch starts once one has failed.
   */
  async function drain(): Promise<void> {
    const writing = new Map<number, Promise<void>>();
    let failed = false;
    for (let first = true; ; first = false) {
      // SQLite answers synchronously: without a macrotask between batches a backlog would hold the event
      // loop, and the redirects with it, until it is written.
      if (!first) await new Promise((resolve) => setImmediate(resolve));
      // Lane 0 alone takes spilled segments, one at a time: the spill answers its oldest until removed.
      for (let lane = 0; lane < parallel && !failed; lane++) {
        if (writing.has(lane)) continue;
        const batch = nextBatch(lane);
        if (!batch) continue;
        writing.set(
          lane,
          writeBatch(batch).then((ok) => {
            writing.delete(lane);
            if (!ok) failed = true;
          }),
        );
      }
      if (writing.size === 0) break;
      await Promise.race(writing.values());
    }
    failing = failed;
  }

  function pendingCount(): number {
    return pending.length + retries.reduce((sum, batch) => sum + batch.clicks.length, 0);
  }

  /** Moves the oldest `count` pending rows to the spill; without one (or when the disk refuses), drops them. */
  function spillOldest(count: number): void {
    const rows = pending.slice(0, count);
    pending = pending.slice(count);
    if (spill) {
      try {
        spill.append(rows);
        return;
      } catch (error) {
        logger.error({ err: error }, 'click spill refused: clicks dropped');
      }
    }
    stats.dropped += rows.length;
    logger.warn({ dropped: stats.dropped, maxBuffered }, 'click buffer full: oldest clicks dropped');
  }

  /** The failed batch as a segment of its own (its id kept: it may have committed), then everything pending. */
  function spillAll(to: ClickSpill): void {
    try {
      for (const batch of retries) to.writeBatch(batch.id ?? `b-${randomUUID()}`, batch.clicks);
      retries = [];
    } catch (error) {
      logger.error({ err: error }, 'click spill refused: the failed batch stays in memory');
    }
    if (pending.length > 0) spillOldest(pending.length);
  }

  /** Serialised: one drain at a time, and a caller arriving mid-drain waits for one that covers its rows. */
  function flush(): Promise<void> {
    if (inFlight) return inFlight.then(() => (pendingCount() > 0 && !failing ? flush() : undefined));
    inFlight = drain().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  /** Set from a failed prune until one succeeds: one log line per streak, though it is retried each flush. */
  let pruneFailing = false;
  function prune(): void {
    if (!pruneBatchIds || Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    pruneBatchIds(lastPrune - BATCH_ID_RETENTION_MS).then(
      () => {
        pruneFailing = false;
      },
      (error: unknown) => {
        lastPrune = 0;
        if (!pruneFailing)
          logger.warn({ err: error }, 'pruning old batch ids failed: retried at the next flush');
        pruneFailing = true;
      },
    );
  }

  return {
    /** Synchronous, O(1) amortised, never throws: the redirect calls it on every visit. */
    record(click: ClickInput): void {
      if (!enabled) return;
      try {
        pending.push(click);
        // Move a tenth at once so a long backlog costs one copy per 10% of the cap, not one per click.
        if (pending.length > maxBuffered)
          spillOldest(pending.length - maxBuffered + Math.ceil(maxBuffered / 10));
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
        // The store failed last time: the failed batch (under its id) and what came in since go to disk,
        // so that memory, and what a hard kill can lose, is one tick of clicks at most.
        if (failing && spill) spillAll(spill);
        failing = false;
        if (!inFlight) {
          prune();
          void flush();
        }
      }, flushIntervalMs);
      timer.unref();
    },

    /**
     * Stops the timer and writes everything left, retrying a failing store a few times; what it still
     * will not take goes to the spill (replayed by the next start), or without one is lost and logged.
     */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      // With a spill to fall back on, a failing store is not worth a long wait at shutdown.
      const attempts = spill ? 2 : 5;
      for (let attempt = 0; attempt < attempts; attempt++) {
        failing = false;
        await flush();
        if (pendingCount() === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
      }
      if (spill) {
        spillAll(spill);
        try {
          spill.seal();
        } catch (error) {
          logger.error({ err: error }, 'click spill not sealed');
        }
        if (pendingCount() === 0) {
          logger.warn({ spilled: spill.stats().clicks }, 'clicks kept in the spill for the next start');
          return;
        }
      }
      logger.error({ lost: pendingCount() }, 'clicks not written at shutdown');
    },

    stats(): ClickBufferStats {
      const spilled = spill?.stats();
      return {
        pending: pendingCount(),
        ...stats,
        spilled: spilled?.clicks ?? 0,
        spillBytes: spilled?.bytes ?? 0,
      };
    },
  };
}

export type ClickBuffer = ReturnType<typeof createClickBuffer>;
