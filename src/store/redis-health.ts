/**
 * Whether this instance reaches Redis, from its clients' own connection events: up once every client is
 * ready, down as soon as one closes or fails. The change is logged once each way ("lost", "back"), however
 * many reconnect attempts fail in between, so an outage is two log lines, not one per retry.
 */

/** What the tracker needs of an ioredis client. */
export interface TrackedRedisClient {
  readonly status: string;
  on(event: 'ready' | 'close' | 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface RedisHealthLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface RedisHealth {
  /** True while every client is connected and ready (false before the first connection). */
  readonly up: boolean;
  /** Stops logging and notifying: the clients are being closed on purpose. */
  stop(): void;
}

export const REDIS_LOST_MESSAGE =
  'redis lost: rate limits are per instance, caches are local, one-shot guards rest on the database';
export const REDIS_BACK_MESSAGE = 'redis back: rate limits and cache invalidation are shared again';

/** Attaches the listeners (an `error` listener on each client among them) and tracks the state. */
export function trackRedisHealth(
  clients: readonly TrackedRedisClient[],
  logger: RedisHealthLogger,
): RedisHealth {
  // 'starting' until the first answer either way: a service that starts without Redis logs it as lost.
  let state: 'starting' | 'up' | 'down' = 'starting';
  let stopped = false;
  let lastError: string | undefined;
  const allReady = () => clients.every((client) => client.status === 'ready');

  const onReady = () => {
    if (stopped || state === 'up' || !allReady()) return;
    if (state === 'down') logger.info({}, REDIS_BACK_MESSAGE);
    state = 'up';
    lastError = undefined;
  };
  const onTrouble = () => {
    if (stopped || state === 'down' || allReady()) return;
    state = 'down';
    logger.warn({ err: lastError ?? 'connection closed' }, REDIS_LOST_MESSAGE);
  };

  for (const client of clients) {
    client.on('ready', onReady);
    client.on('close', onTrouble);
    client.on('end', onTrouble);
    // Without a listener ioredis prints "Unhandled error event" on every failed reconnect. The error is
    // kept for the one "lost" line; the retries themselves are not logged.
    client.on('error', (error: Error) => {
      lastError = error.message;
      onTrouble();
    });
  }

  return {
    get up() {
      return state === 'up';
    },
    stop() {
      stopped = true;
    },
  };
}
