import type { Redis } from 'ioredis';

/** The outcome of counting one request against its window. */
export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until one more request would be allowed (the oldest counted hit leaves the window). */
  resetSeconds: number;
  allowed: boolean;
}

export interface RateLimiter {
  /** Counts one request and decides it; a refused request is not counted. */
  hit(key: string): Promise<RateDecision>;
  /** Decides whether one more request would be allowed, without counting it. */
  peek(key: string): Promise<RateDecision>;
  /** Keys counted in this process now (memory limiters; for /metrics). */
  size?(): number;
}

/** Keys held in this process by every limiter given (the in-memory logs, on their own or as fallback). */
export function keysHeld(limiters: Iterable<unknown>): number {
  let keys = 0;
  for (const limiter of limiters)
    if (typeof (limiter as RateLimiter | undefined)?.size === 'function')
      keys += (limiter as RateLimiter).size?.() ?? 0;
  return keys;
}

export interface RateLimitOptions {
  limit: number;
  windowSeconds: number;
  now?: () => number;
}

/**
 * A sliding log: at most `limit` hits in ANY interval of `windowSeconds`, not per fixed window, so a client
 * cannot fit twice the limit across a window edge. Each key keeps the times of its counted hits (at most
 * `limit` of them); a refused hit is not counted, so hammering does not extend a lock-out.
 */
function decide(limit: number, counted: number, oldestAgeMs: number, windowMs: number, allowed: boolean) {
  const full = counted >= limit;
  return {
    limit,
    remaining: Math.max(0, limit - counted),
    resetSeconds: Math.max(1, Math.ceil((full ? windowMs - oldestAgeMs : windowMs) / 1000)),
    allowed,
  };
}

/** The sliding log in this process: the default when there is one instance. */
export function createMemoryRateLimiter(options: RateLimitOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const { limit } = options;
  const logs = new Map<string, number[]>();
  let lastSweep = now();

  /** The key's hits still inside the window, oldest first. */
  function live(key: string, at: number): number[] {
    if (at - lastSweep > windowMs) {
      // Idle keys are dropped once a window, so they cannot grow the map forever.
      for (const [name, times] of logs)
        if ((times[times.length - 1] ?? 0) <= at - windowMs) logs.delete(name);
      lastSweep = at;
    }
    const times = logs.get(key) ?? [];
    let expired = 0;
    while (expired < times.length && (times[expired] as number) <= at - windowMs) expired++;
    if (expired > 0) times.splice(0, expired);
    return times;
  }

  return {
    async hit(key) {
      const at = now();
      const times = live(key, at);
      const allowed = times.length < limit;
      if (allowed) {
        times.push(at);
        logs.set(key, times);
      }
      return decide(limit, times.length, at - (times[0] ?? at), windowMs, allowed);
    },
    async peek(key) {
      const at = now();
      const times = live(key, at);
      return decide(limit, times.length, at - (times[0] ?? at), windowMs, times.length < limit);
    },
    // Idle keys linger until the next hit a window later sweeps them: this counts them too.
    size: () => logs.size,
  };
}

// The same sliding log in a sorted set, atomically: every instance shares one log per key. Members are
// unique per hit (time and a per-call nonce); the set expires a window after its newest hit.
const SLIDING_SCRIPT = `
local key, now, window, limit, count_it = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[5]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local counted = redis.call('ZCARD', key)
local allowed = counted < limit
if allowed and count_it == '1' then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, window)
  counted = counted + 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]
return {counted, allowed and 1 or 0, oldest and (now - tonumber(oldest)) or 0}`;

/** The sliding log in Redis, shared by every instance (REDIS_URL). */
export function createRedisRateLimiter(
  redis: Redis,
  options: RateLimitOptions & { prefix?: string },
): RateLimiter {
  const windowMs = options.windowSeconds * 1000;
  const prefix = options.prefix ?? 'linkhop:rl:';
  const now = options.now ?? Date.now;
  let sequence = 0;
  async function run(key: string, count: boolean): Promise<RateDecision> {
    const at = now();
    sequence = (sequence + 1) % 1_000_000_000;
    const member = `${at}:${process.pid}:${sequence}:${Math.random().toString(36).slice(2, 8)}`;
    const [counted, allowed, oldestAge] = (await redis.eval(
      SLIDING_SCRIPT,
      1,
      // Its own key space: a fixed-window counter left by an older version is a string, not a sorted set.
      `${prefix}log:${key}`,
      String(at),
      String(windowMs),
      String(options.limit),
      member,
      count ? '1' : '0',
    )) as [number, number, number];
    return decide(options.limit, Number(counted), Number(oldestAge), windowMs, Number(allowed) === 1);
  }
  return { hit: (key) => run(key, true), peek: (key) => run(key, false) };
}
