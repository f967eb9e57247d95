import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { withTimeout } from './health.js';

/**
 * Prometheus metrics (prom-client) for one instance. The redirect's hot path never calls prom-client: it
 * bumps plain numbers (a count per route and status, a fixed-bucket latency histogram) that are copied into
 * the registry when Prometheus scrapes. Gauges read their probes at scrape time too.
 */

export interface ClickSinkStats {
  pending: number;
  dropped: number;
  /** Clicks written to the local spill file and not yet replayed into the database. */
  spilled?: number;
  /** Size of the spill file(s) on disk. */
  spillBytes?: number;
}

export interface MetricsProbes {
  clicks: () => ClickSinkStats;
  /** Whether the database answered last time it was used or pinged. */
  dbUp: () => boolean;
  /** Absent when Redis is not configured. */
  redisUp?: () => boolean;
  /** ANALYTICS_URL's ClickHouse as last seen; absent without it. */
  analyticsUp?: () => boolean;
  /** Pending webhook deliveries; may fail while the database is away (the last value is kept). */
  outboxDepth: () => Promise<number>;
  /**
   * Heap numbers of the threads besides the main one that have their own V8 heap (the click writer),
   * by thread label; asked at scrape time, undefined for a thread that is not running or did not answer.
   */
  threads?: () => Promise<Record<string, ThreadMemory | undefined>>;
  /** Entries (and bytes, where cheaply known) held by each in-process cache, by cache label. */
  caches?: () => Record<string, CacheSize>;
}

/** One V8 isolate's memory: process.memoryUsage() read inside that thread, less the RSS. */
export interface ThreadMemory {
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export interface CacheSize {
  entries: number;
  bytes?: number;
}

/** This thread's isolate: its heap, and what its JavaScript objects hold outside the heap. */
export function threadMemory(): ThreadMemory {
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  return { heapUsed, heapTotal, external, arrayBuffers };
}

/** Redirect latency buckets, in seconds: a cached redirect takes tens of microseconds. */
export const REDIRECT_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
] as const;

export interface Metrics {
  /** Counts a finished request by its route pattern and status. O(1), allocation-free for known keys. */
  countRequest(route: string, status: number): void;
  /** A redirect's latency in seconds (the fast path and the slug route). */
  observeRedirect(seconds: number): void;
  readonly contentType: string;
  render(): Promise<string>;
}

const OUTBOX_TIMEOUT_MS = 500;
const THREAD_TIMEOUT_MS = 250;

const THREAD_GAUGES: readonly [keyof ThreadMemory, string, string][] = [
  ['heapUsed', 'linkhop_thread_heap_used_bytes', 'V8 heap in use, per thread with its own heap'],
  ['heapTotal', 'linkhop_thread_heap_total_bytes', 'V8 heap reserved, per thread with its own heap'],
  [
    'external',
    'linkhop_thread_external_bytes',
    "Memory outside the V8 heap held by a thread's JavaScript objects (buffers included)",
  ],
  [
    'arrayBuffers',
    'linkhop_thread_array_buffers_bytes',
    'ArrayBuffers and Buffers allocated by a thread (part of external; a SharedArrayBuffer counts for the thread that made it)',
  ],
];

export function createMetrics(probes: MetricsProbes): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'linkhop_' });

  // route -> status -> count: two map reads per request, no string built.
  const requests = new Map<string, Map<number, number>>();
  const buckets = new Float64Array(REDIRECT_BUCKETS.length);
  let redirectCount = 0;
  let redirectSum = 0;

  new Counter({
    name: 'linkhop_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames: ['route', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [route, byStatus] of requests)
        for (const [status, count] of byStatus) this.inc({ route, status: String(status) }, count);
    },
  });
  const gauge = (name: string, help: string, read: () => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const value = read();
        if (value !== undefined) this.set(value);
      },
    });
  gauge(
    'linkhop_click_buffer_depth',
    'Clicks recorded and not yet written to the database',
    () => probes.clicks().pending,
  );
  gauge(
    'linkhop_click_spill_clicks',
    'Clicks held in the local spill file, waiting for the database',
    () => probes.clicks().spilled ?? 0,
  );
  gauge(
    'linkhop_click_spill_bytes',
    'Size of the local click spill file',
    () => probes.clicks().spillBytes ?? 0,
  );
  gauge(
    'linkhop_clicks_dropped',
    'Clicks dropped since start (spill unavailable or ring full)',
    () => probes.clicks().dropped,
  );
  gauge('linkhop_database_up', '1 when the database answered last time it was used', () =>
    probes.dbUp() ? 1 : 0,
  );
  const redisUp = probes.redisUp;
  if (redisUp) gauge('linkhop_redis_up', '1 while Redis is connected', () => (redisUp() ? 1 : 0));
  const analyticsUp = probes.analyticsUp;
  if (analyticsUp)
    gauge('linkhop_analytics_up', '1 when ClickHouse (ANALYTICS_URL) answered last time it was used', () =>
      analyticsUp() ? 1 : 0,
    );
  let outboxDepth: number | undefined;
  new Gauge({
    name: 'linkhop_webhook_outbox_depth',
    help: 'Webhook deliveries waiting in the outbox (last known value while the database is away)',
    registers: [registry],
    async collect() {
      try {
        outboxDepth = await withTimeout(probes.outboxDepth(), OUTBOX_TIMEOUT_MS);
      } catch {
        // The database is away or slow: a scrape never waits on it, the last value stands.
      }
      if (outboxDepth !== undefined) this.set(outboxDepth);
    },
  });

  const readThreads = registerThreadMemory(registry, probes.threads);
  if (probes.caches) registerCaches(registry, probes.caches);

  return {
    countRequest(route, status) {
      let byStatus = requests.get(route);
      if (byStatus === undefined) {
        byStatus = new Map();
        requests.set(route, byStatus);
      }
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    },
    observeRedirect(seconds) {
      redirectCount += 1;
      redirectSum += seconds;
      for (let i = 0; i < REDIRECT_BUCKETS.length; i++) {
        if (seconds <= (REDIRECT_BUCKETS[i] as number)) {
          buckets[i] = (buckets[i] as number) + 1;
          break;
        }
      }
    },
    contentType: registry.contentType,
    async render() {
      // Every thread is asked once per scrape, before the four thread gauges read the answers.
      await readThreads();
      return (await registry.metrics()) + renderHistogram();
    },
  };

  /** The redirect histogram in the text exposition format (cumulative buckets, +Inf, sum, count). */
  function renderHistogram(): string {
    const name = 'linkhop_redirect_duration_seconds';
    const lines = [
      `# HELP ${name} Time to answer a redirect (fast path and slug route)`,
      `# TYPE ${name} histogram`,
    ];
    let cumulative = 0;
    REDIRECT_BUCKETS.forEach((le, i) => {
      cumulative += buckets[i] as number;
      lines.push(`${name}_bucket{le="${le}"} ${cumulative}`);
    });
    lines.push(
      `${name}_bucket{le="+Inf"} ${redirectCount}`,
      `${name}_sum ${redirectSum}`,
      `${name}_count ${redirectCount}`,
    );
    return `${lines.join('\n')}\n`;
  }
}

/**
 * RSS once for the process, V8 numbers per thread. Linux keeps one resident set
 * per process: threads share it, so there is no per-thread RSS to show. A thread's numbers are asked at
 * scrape time (nothing runs while nobody scrapes, and a restarted thread is simply the one asked next);
 * one that does not answer in time keeps its last value, one that is gone drops out.
 */
function registerThreadMemory(registry: Registry, threads: MetricsProbes['threads']): () => Promise<void> {
  new Gauge({
    name: 'linkhop_process_rss_bytes',
    help: 'Resident set size of the whole process: every thread shares it (Linux has no per-thread RSS)',
    registers: [registry],
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  const last = new Map<string, ThreadMemory>();
  const readThreads = async () => {
    last.set('main', threadMemory());
    if (!threads) return;
    // A probe that fails or hangs keeps every thread's last numbers.
    const others = await withTimeout(threads(), THREAD_TIMEOUT_MS).catch(() => undefined);
    if (others === undefined) return;
    for (const [thread, memory] of Object.entries(others)) {
      if (memory) last.set(thread, memory);
      else last.delete(thread);
    }
  };
  for (const [field, name, help] of THREAD_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['thread'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [thread, memory] of last) this.set({ thread }, memory[field]);
      },
    });
  }
  return readThreads;
}

/** Cache sizes per cache, read at scrape time: entries always, bytes where the cache knows them. */
function registerCaches(registry: Registry, caches: () => Record<string, CacheSize>): void {
  new Gauge({
    name: 'linkhop_cache_entries',
    help: 'Entries held by an in-process cache',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, size] of Object.entries(caches())) this.set({ cache }, size.entries);
    },
  });
  new Gauge({
    name: 'linkhop_cache_bytes',
    help: 'Bytes held by an in-process cache, where they are known without walking it',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, size] of Object.entries(caches()))
        if (size.bytes !== undefined) this.set({ cache }, size.bytes);
    },
  });
}
