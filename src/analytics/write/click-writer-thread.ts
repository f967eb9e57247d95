// First: keeps Node's tick-object maps alive before anything else runs (src/keep-tick-maps.ts).
import '../../keep-tick-maps.js';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../store/database.js';
import { createDbHealth } from '../../store/db-health.js';
import { clickhouseBufferOptions } from '../clickhouse/batching.js';
import { openLiveClickhouse } from '../clickhouse/live.js';
import { createClickBuffer } from './click-buffer.js';
import { createClickRingReader } from './click-ring.js';
import { createClickSpill } from './click-spill.js';

/** The thread's statements may take longer than an API call's: a batch is thousands of rows. */
const THREAD_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * The click writer thread: it reads the clicks the redirects put in the shared ring (click-ring.ts) and
 * writes them in batches through its own connection, with the same batch buffer, retry and memory bound
 * as the in-process writer (click-buffer.ts). The thread that serves redirects pays twelve word writes a
 * click; packing, rollups and commits run here, beside it.
 *
 * Messages in: `{type: 'flush', seq}` (everything recorded so far written, then `{type: 'flushed', seq}`)
 * `{type: 'memory', seq}` (this thread's heap numbers, `{type: 'memory', seq, memory}`, for /metrics)
 * and `{type: 'stop'}` (the same, then the connection closed, `{type: 'stopped'}`, and the thread ends).
 * Out, besides those: `{type: 'log', level, details, message}` for the main thread's logger, and with
 * ANALYTICS_URL `{type: 'analytics', up}` on each change between a write that reached ClickHouse and one
 * that failed for want of it (for /health and /metrics).
 */

export interface ClickWriterThreadData {
  ring: SharedArrayBuffer;
  databaseUrl: string;
  /** PostgreSQL schema (tests work in a throwaway schema). */
  schema?: string;
  spillDir?: string;
  sqliteCacheMb?: number;
  /** ANALYTICS_URL: clicks go to ClickHouse through this thread's own client (the main database opened still). */
  analyticsUrl?: string;
  /** The producer's numbered strings, for a thread started on a ring already in use. */
  dictionary: [number, string][];
  drainIntervalMs: number;
  flushIntervalMs: number;
}

type Command = { type: 'flush'; seq: number } | { type: 'memory'; seq: number } | { type: 'stop' };

/** Errors cross the thread boundary as plain data (a driver's error may hold what cannot be cloned). */
function plain(details: object): object {
  return Object.fromEntries(
    Object.entries(details).map(([key, value]) => [
      key,
      value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value,
    ]),
  );
}

function run(port: MessagePort, data: ClickWriterThreadData): void {
  const log = (level: 'warn' | 'error') => (details: object, message: string) =>
    port.postMessage({ type: 'log', level, details: plain(details), message });
  const logger = { warn: log('warn'), error: log('error') };
  // The thread's own pool: its errors are reported (a cut connection is retried by the buffer), never
  // left unhandled, so a database outage cannot end the thread or the process.
  const store = openStore(data.databaseUrl, {
    ...(data.schema ? { schema: data.schema } : {}),
    ...(data.sqliteCacheMb ? { sqliteCacheMb: data.sqliteCacheMb } : {}),
    maxConnections: 2,
    statementTimeoutMs: THREAD_STATEMENT_TIMEOUT_MS,
  });
  const clickhouse = data.analyticsUrl ? openThreadClickhouse(port, data.analyticsUrl, store) : null;
  const buffer = createClickBuffer({
    store,
    logger,
    flushIntervalMs: data.flushIntervalMs,
    ...(clickhouse ? clickhouseBufferOptions(clickhouse.store) : {}),
    ...(data.spillDir ? { spill: createClickSpill({ dir: data.spillDir }) } : {}),
  });
  const reader = createClickRingReader(data.ring, data.dictionary);

  const drain = () => {
    try {
      reader.drain((click) => buffer.record(click));
    } catch (error) {
      logger.error({ err: error }, 'click ring unreadable: its unread clicks are lost');
    }
    reader.report(buffer.stats());
  };

  buffer.start();
  const timer = setInterval(drain, data.drainIntervalMs);
  port.on('message', (command: Command) => {
    if (command.type === 'memory') {
      // This isolate's own heap (process.memoryUsage reads the calling thread's isolate), for /metrics.
      const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      port.postMessage({
        type: 'memory',
        seq: command.seq,
        memory: { heapUsed, heapTotal, external, arrayBuffers },
      });
      return;
    }
    void (async () => {
      if (command.type === 'flush') {
        drain();
        await buffer.flush();
        reader.report(buffer.stats());
        port.postMessage({ type: 'flushed', seq: command.seq });
        return;
      }
      clearInterval(timer);
      drain();
      await buffer.stop();
      reader.report(buffer.stats());
      await clickhouse?.close();
      await store.close();
      port.postMessage({ type: 'stopped' });
      port.close();
    })();
  });
}

/**
 * ClickHouse through this thread's own client (the main thread's cannot cross): a batch may take longer
 * than an API read, so the request timeout is the thread's statement timeout. Its writes' outcomes go to
 * the main thread, which holds the state /health and /metrics show.
 */
function openThreadClickhouse(port: MessagePort, url: string, main: ReturnType<typeof openStore>) {
  const health = createDbHealth();
  health.onChange((up) => port.postMessage({ type: 'analytics', up }));
  return openLiveClickhouse(url, main, { requestTimeoutMs: THREAD_STATEMENT_TIMEOUT_MS, health });
}

if (parentPort) run(parentPort, workerData as ClickWriterThreadData);
