import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ThreadMemory } from '../../http/metrics.js';
import type { BufferLogger, ClickBufferStats, ClickInput } from './click-buffer.js';
import { createClickRingBuffer, createClickRingWriter, readCounters } from './click-ring.js';
import type { ClickWriterThreadData } from './click-writer-thread.js';

/**
 * The click sink of a running server: visits go into a shared ring (click-ring.ts) and a writer thread
 * (click-writer-thread.ts) batches them into the database over its own connection. Same contract as the
 * in-process buffer (click-buffer.ts): `record` is synchronous and never throws, `flush` resolves once
 * everything recorded before it is written (or retried later on a failing store), `stop` writes
 * everything and ends the thread.
 *
 * The thread starts with the first click, or at `start()` when an earlier run left spilled clicks to
 * replay: an instance nobody visits does not hold a second isolate (about 30 MB of RSS) for nothing.
 *
 * A thread that dies is started again on the same ring with the producer's dictionary, so clicks
 * recorded meanwhile are still written; what it held in its batch buffer is lost. After five deaths in a
 * minute it is left down and the ring fills, dropping (and counting) clicks, never redirects.
 */

export interface ClickThreadOptions {
  /** The built writer thread script (clickWriterThreadFile()). */
  file: URL;
  databaseUrl: string;
  schema?: string;
  /** Where the thread spills clicks while the database fails (unset: it drops past its memory bound). */
  spillDir?: string;
  /** SQLite: the thread's connection's page cache ceiling in MB (SQLITE_CACHE_MB). */
  sqliteCacheMb?: number;
  /** ANALYTICS_URL: the thread writes clicks to ClickHouse through a client of its own. */
  analyticsUrl?: string;
  /** The thread's ClickHouse writes, on each change: false after one failed for want of the server, true after one went through. */
  onAnalytics?: (up: boolean) => void;
  logger: BufferLogger;
  /** Ring size in 32-bit words, a power of two (default 2^21: 8 MB, about 170,000 clicks). */
  ringWords?: number;
  /** How often the thread empties the ring into its batch buffer. */
  drainIntervalMs?: number;
  /** How often the thread's batch buffer writes (like the in-process buffer's). */
  flushIntervalMs?: number;
}

const BUILT_THREAD = new URL('./click-writer-thread.js', import.meta.url);
const RESTARTS = { limit: 5, windowMs: 60_000 };

/** The compiled thread script, or null when running from the TypeScript sources (tests). */
export function clickWriterThreadFile(): URL | null {
  return existsSync(fileURLToPath(BUILT_THREAD)) ? BUILT_THREAD : null;
}

type Message =
  | { type: 'log'; level: 'warn' | 'error'; details: object; message: string }
  | { type: 'flushed'; seq: number }
  | { type: 'memory'; seq: number; memory: ThreadMemory }
  | { type: 'analytics'; up: boolean }
  | { type: 'stopped' };

/** A scrape waits this long for the thread's numbers, then shows the last ones. */
const MEMORY_TIMEOUT_MS = 200;

export function createClickThread(options: ClickThreadOptions) {
  const ring = createClickRingBuffer(options.ringWords ?? 2 ** 21);
  // Published once per event-loop turn: a busy turn serves many redirects and fences once.
  const writer = createClickRingWriter(ring, { schedule: (publish) => setImmediate(publish) });
  const { logger } = options;
  let worker: Worker | null = null;
  let stopping: Promise<void> | null = null;
  let abandoned = false;
  let seq = 0;
  const flushes = new Map<number, () => void>();
  const deaths: number[] = [];
  const memoryAsks = new Map<number, (memory: ThreadMemory) => void>();
  // The running thread's last answer; dropped with the thread, so a restarted one never shows the old one's.
  let lastMemory: ThreadMemory | undefined;

  function settleFlushes(): void {
    for (const resolve of flushes.values()) resolve();
    flushes.clear();
  }

  function spawn(): Worker {
    const data: ClickWriterThreadData = {
      ring,
      databaseUrl: options.databaseUrl,
      ...(options.schema ? { schema: options.schema } : {}),
      ...(options.spillDir ? { spillDir: options.spillDir } : {}),
      ...(options.sqliteCacheMb ? { sqliteCacheMb: options.sqliteCacheMb } : {}),
      ...(options.analyticsUrl ? { analyticsUrl: options.analyticsUrl } : {}),
      dictionary: writer.dictionary(),
      drainIntervalMs: options.drainIntervalMs ?? 50,
      flushIntervalMs: options.flushIntervalMs ?? 500,
    };
    const started = new Worker(options.file, { workerData: data });
    started.on('message', (message: Message) => {
      if (message.type === 'log') logger[message.level](message.details, message.message);
      else if (message.type === 'analytics') options.onAnalytics?.(message.up);
      else if (message.type === 'flushed') {
        flushes.get(message.seq)?.();
        flushes.delete(message.seq);
        if (flushes.size === 0 && !stopping) started.unref();
      } else if (message.type === 'memory' && worker === started) {
        lastMemory = message.memory;
        memoryAsks.get(message.seq)?.(message.memory);
        memoryAsks.delete(message.seq);
      }
    });
    started.on('error', (error) => logger.error({ err: error }, 'click writer thread failed'));
    started.on('exit', (code) => {
      if (worker !== started) return;
      worker = null;
      lastMemory = undefined;
      if (stopping) return;
      const now = Date.now();
      deaths.push(now);
      while ((deaths[0] ?? now) < now - RESTARTS.windowMs) deaths.shift();
      if (deaths.length >= RESTARTS.limit) {
        abandoned = true;
        logger.error({ code }, 'click writer thread keeps dying: left down, clicks are dropped');
        settleFlushes();
        return;
      }
      logger.error({ code }, 'click writer thread exited: starting it again');
      const next = ensure();
      for (const id of flushes.keys()) next?.postMessage({ type: 'flush', seq: id });
    });
    // Idle, the thread never keeps the process alive; a flush or a stop holds it while it works.
    started.unref();
    return started;
  }

  function ensure(): Worker | null {
    if (abandoned) return null;
    worker ??= spawn();
    return worker;
  }

  /** Spilled segments of an earlier run wait in the folder: the thread replays them as it starts. */
  function spillWaiting(): boolean {
    if (!options.spillDir) return false;
    try {
      return readdirSync(options.spillDir).some((file) => file.endsWith('.seg') || file.endsWith('.open'));
    } catch {
      return false;
    }
  }

  return {
    record(click: ClickInput): void {
      try {
        writer.record(click);
      } catch {
        // A click is never worth failing a redirect.
      }
      // The first click starts the thread (it reads the ring from the start, so this one is written).
      if (worker === null && !stopping && !abandoned) ensure();
    },

    flush(): Promise<void> {
      // After stop there is no thread to ask: stop itself wrote everything recorded before it.
      if (stopping) return stopping;
      writer.publish();
      const current = ensure();
      if (!current) return Promise.resolve();
      const id = ++seq;
      current.ref();
      return new Promise<void>((resolve) => {
        flushes.set(id, resolve);
        current.postMessage({ type: 'flush', seq: id });
      });
    },

    /** Starts the thread now only when spilled clicks wait for it; otherwise the first click does. */
    start(): void {
      if (!stopping && spillWaiting()) ensure();
    },

    /** Writes everything recorded and ends the thread; idempotent. */
    stop(): Promise<void> {
      stopping ??= (async () => {
        writer.publish();
        if (!worker && readCounters(ring).recorded === 0) return;
        const current = ensure();
        if (!current) return;
        current.ref();
        const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
        current.postMessage({ type: 'stop' });
        await exited;
        worker = null;
        settleFlushes();
      })();
      return stopping;
    },

    /**
     * The writer thread's heap, read inside it (for /metrics): undefined while no thread runs; the last
     * answer when it does not answer within MEMORY_TIMEOUT_MS (busy with a batch). Never starts a thread.
     */
    memory(): Promise<ThreadMemory | undefined> {
      const current = worker;
      if (!current || stopping) return Promise.resolve(undefined);
      const id = ++seq;
      return new Promise<ThreadMemory | undefined>((resolve) => {
        const timer = setTimeout(() => {
          memoryAsks.delete(id);
          resolve(worker === current ? lastMemory : undefined);
        }, MEMORY_TIMEOUT_MS);
        timer.unref();
        memoryAsks.set(id, (memory) => {
          clearTimeout(timer);
          resolve(memory);
        });
        current.postMessage({ type: 'memory', seq: id });
      });
    },

    stats(): ClickBufferStats {
      writer.publish();
      const counters = readCounters(ring);
      return {
        pending: ((counters.recorded - counters.consumed) >>> 0) + counters.writerPending,
        written: counters.writerWritten,
        dropped: counters.ringDropped + counters.writerDropped,
        failedFlushes: counters.writerFailed,
        spilled: counters.writerSpilled,
        spillBytes: counters.writerSpillBytes,
      };
    },
  };
}

export type ClickThread = ReturnType<typeof createClickThread>;

/** The writer thread's memory when the click sink is a thread; undefined for the in-process buffer. */
export function writerThreadMemory(sink: object): Promise<ThreadMemory | undefined> {
  return 'memory' in sink ? (sink as ClickThread).memory() : Promise.resolve(undefined);
}
