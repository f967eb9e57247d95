import type { Redis, RedisOptions } from 'ioredis';
import { type RedisHealth, type RedisHealthLogger, trackRedisHealth } from './redis-health.js';

/**
 * The Redis clients of one hosted instance (REDIS_URL). Redis only ever makes things shared (rate limits,
 * cache invalidation, tap one-shots), so every client is set to fail fast rather than wait: a request must
 * fall back to its local answer in milliseconds, never hang on a Redis that is away.
 */

export const REDIS_COMMAND_TIMEOUT_MS = 250;
// Reconnect attempts back off to one a second: Redis is noticed within a second of its return.
const RECONNECT_CAP_MS = 1_000;
// A path that drops packets without closing (a firewall, a dead NAT entry) sends no reset: each client
// pings this often, and a connection that leaves a command unanswered for SOCKET_TIMEOUT_MS is closed,
// so the outage is noticed (and handled as one) within about five seconds.
const HEARTBEAT_MS = 3_000;
const SOCKET_TIMEOUT_MS = 2_000;

export const redisClientOptions: RedisOptions = {
  // A command that gets no answer fails after 250 ms (a path that drops packets rather than resets).
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  // While disconnected a command fails at once instead of waiting in a queue that has no bound.
  enableOfflineQueue: false,
  // A command in flight when the connection drops fails; it is not sent again after the reconnection,
  // when its caller has long moved on to the local answer.
  maxRetriesPerRequest: 1,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 2_000,
  socketTimeout: SOCKET_TIMEOUT_MS,
  retryStrategy: (times: number) => Math.min(times * 100, RECONNECT_CAP_MS),
};

export interface RedisClients {
  /** Commands: rate limits, one-shot guards, invalidation publishes. */
  publisher: Redis;
  /** Subscriptions only (a subscribed connection cannot run other commands). */
  subscriber: Redis;
  health: RedisHealth;
  close(): Promise<void>;
}

/**
 * Opens both clients and waits until they are ready, at most `readyWithinMs`: a service whose Redis is away
 * at start still starts, on its local fallbacks, and goes shared when Redis arrives.
 */
export async function openRedisClients(
  url: string,
  logger: RedisHealthLogger,
  readyWithinMs = 2_000,
): Promise<RedisClients> {
  // Loaded here, not at the top: an instance without REDIS_URL never holds ioredis (about 4 MB of RSS).
  const { Redis } = await import('ioredis');
  const publisher = new Redis(url, redisClientOptions);
  const subscriber = new Redis(url, redisClientOptions);
  const clients = [publisher, subscriber];
  const health = trackRedisHealth(clients, logger);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyWithinMs);
    const check = () => {
      if (!health.up) return;
      clearTimeout(timer);
      resolve();
    };
    for (const client of clients) client.once('ready', check);
    check();
  });
  const heartbeat = setInterval(() => {
    for (const client of clients) if (client.status === 'ready') client.ping().catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    publisher,
    subscriber,
    health,
    async close() {
      clearInterval(heartbeat);
      health.stop();
      // QUIT fails at once while disconnected (no offline queue): then the socket is simply dropped.
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
