import { appError } from '../../errors.js';
import { parseClickhouseUrl } from '../../store/clickhouse-url.js';
import type { Store } from '../../store/database.js';
import { isConnectionError } from '../../store/db-errors.js';
import { createDbHealth, type DbHealth } from '../../store/db-health.js';
import type { AnalyticsStore } from '../repo.js';
import { createClickhouseClient } from './client.js';
import { createClickhouseHousekeeping } from './housekeeping.js';
import { applySchema, tablesOf } from './schema.js';
import { createClickhouseAnalyticsStore } from './store.js';

/**
 * ClickHouse as the running service holds it (ANALYTICS_URL): the store of store.ts behind a guard that
 * never lets an unreachable server stop a start, crash a request or reach a client as a 500.
 *
 * - **Start without the server.** The schema is applied on the first use and, until that works, again on
 *   every ping (every PING_INTERVAL_MS): opening never waits on ClickHouse, so an instance started while it
 *   is away serves redirects at once, holds and spills clicks as it does while PostgreSQL is away, and the
 *   first write after the server is back creates the tables before inserting. Waiting at start instead
 *   would make a ClickHouse outage take the redirects down with every restart.
 * - **Up or down** (`health`): down after a call failed for want of the server (refused, reset, timed
 *   out), up after any call or ping answered. The writer thread reports its own writes here too.
 * - **Away is a 503.** A read that fails for want of the server throws the spec's `unavailable` error
 *   with a Retry-After; a server that answered with an error (a bug) stays a 500.
 */

const PING_INTERVAL_MS = 5_000;
/** A read of the API or a write of the beacon: a hung server fails it well before a client gives up. */
const REQUEST_TIMEOUT_MS = 10_000;
const RETRY_AFTER_SECONDS = 5;
/** The client's own wording when the socket ends or waits too long (it keeps Node's code on the rest). */
const AWAY = /Timeout error|socket hang up|other side closed|ECONNRESET|ECONNREFUSED/i;

export function isClickhouseAway(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && AWAY.test(message);
}

export interface LiveClickhouse {
  store: AnalyticsStore;
  health: DbHealth;
  /** One round trip (the schema first, while it is missing); rejects while the server is away. */
  ping(): Promise<void>;
  /** Queues the deletion of an erased organization's rows; the tables it had rows in. */
  eraseOrganization(orgId: string): Promise<string[]>;
  /** Drops raw clicks' months ending by `cutoffMs`; the partitions dropped. */
  dropClicksBefore(cutoffMs: number): Promise<string[]>;
  /** Pings in the background (health and the schema stay current with no traffic). */
  start(): void;
  close(): Promise<void>;
}

export interface LiveClickhouseOptions {
  requestTimeoutMs?: number;
  /** One line per transition between up and down. */
  logger?: { warn(details: object, message: string): void; error(details: object, message: string): void };
  /** The health to report to (the main thread's, for the thread's own writes); a new one otherwise. */
  health?: DbHealth;
}

export function openLiveClickhouse(
  url: string,
  main: Store,
  options: LiveClickhouseOptions = {},
): LiveClickhouse {
  const parsed = parseClickhouseUrl(url);
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const client = createClickhouseClient({ ...parsed, requestTimeoutMs });
  const setup = createClickhouseClient({ ...parsed, requestTimeoutMs, useDatabase: false });
  const tables = tablesOf(parsed.database);
  const inner = createClickhouseAnalyticsStore({ client, database: parsed.database, main });
  const housekeeping = createClickhouseHousekeeping(client, tables);
  const health = options.health ?? createDbHealth();
  const { logger } = options;
  if (logger && !options.health) {
    health.onChange((up, error) => {
      if (up) logger.warn({}, 'ClickHouse analytics reached again');
      else logger.error({ error }, 'ClickHouse analytics unreachable: clicks are held and spilled');
    });
  }

  // Applied once; a failure forgets the attempt so the next call tries again.
  let schema: Promise<void> | null = null;
  const ready = (): Promise<void> => {
    schema ??= applySchema(setup, tables).catch((error: unknown) => {
      schema = null;
      throw error;
    });
    return schema;
  };

  /** `work` once the schema is there, the outcome reported to `health`. */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    try {
      await ready();
      const result = await work();
      health.markUp();
      return result;
    } catch (error) {
      if (!isClickhouseAway(error)) throw error;
      health.markDown(error, startedAt);
      throw appError('unavailable', 'Analytics are unavailable; try again shortly', {
        retryAfter: RETRY_AFTER_SECONDS,
      });
    }
  }

  const store: AnalyticsStore = {
    writeClicks: (clicks, batchId) => guarded(() => inner.writeClicks(clicks, batchId)),
    insertOutcome: (row, within) => guarded(() => inner.insertOutcome(row, within)),
    pruneBatchIds: (beforeMs) => guarded(() => inner.pruneBatchIds(beforeMs)),
    sums: (scope, dimensions, window) => guarded(() => inner.sums(scope, dimensions, window)),
    daily: (scope, window) => guarded(() => inner.daily(scope, window)),
    linkTotals: (scope, window) => guarded(() => inner.linkTotals(scope, window)),
    perLink: (scope, window, limit) => guarded(() => inner.perLink(scope, window, limit)),
    linkSums: (orgId, ids, dimensions, window) =>
      guarded(() => inner.linkSums(orgId, ids, dimensions, window)),
    clicks: (linkId, fromMs, limit, offset) => guarded(() => inner.clicks(linkId, fromMs, limit, offset)),
    exportPages: (scope, fromMs, pageSize) => guardedPages(inner.exportPages(scope, fromMs, pageSize)),
  };

  /** The export's pages, each step guarded (a server lost mid-export ends it with `unavailable`). */
  async function* guardedPages<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      const step = await guarded(() => iterator.next());
      if (step.done) return;
      yield step.value;
    }
  }

  let timer: NodeJS.Timeout | null = null;
  const ping = () => guarded(() => client.rows('SELECT 1')).then(() => undefined);
  return {
    store,
    health,
    ping,
    eraseOrganization: (orgId) => guarded(() => housekeeping.eraseOrganization(orgId)),
    dropClicksBefore: (cutoffMs) => guarded(() => housekeeping.dropClicksBefore(cutoffMs)),
    start() {
      if (timer) return;
      const tick = () => void ping().catch(() => {});
      timer = setInterval(tick, PING_INTERVAL_MS);
      timer.unref();
      tick();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await client.close();
      await setup.close();
    },
  };
}
