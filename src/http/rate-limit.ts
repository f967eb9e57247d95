import type { Redis } from 'ioredis';

/** The outcome of counting one request against its window. */
export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  allowed: boolean;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
}

export interface RateLimitOptions {
  limit: number;
  windowSeconds: number;
  now?: () => number;
}

function decide(limit: number, count: number, resetMs: number): RateDecision {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    allowed: count <= limit,
  };
}

/** A fixed-window counter in this process: the default when there is one instance. */
export function createMemoryRateLimiter(options: RateLimitOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const windows = new Map<string, { count: number; resetAt: number }>();
  let lastSweep = now();
  return {
    async hit(key) {
      const at = now();
      if (at - lastSweep > windowMs) {
        // Expired windows are dropped once a window, so idle keys cannot grow the map forever.
        for (const [name, window] of windows) if (window.resetAt <= at) windows.delete(name);
        lastSweep = at;
      }
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return decide(options.limit, window.count, window.resetAt - at);
    },
  };
}

// INCR and start the window on the first hit, atomically: every instance shares one count per key.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/** The same fixed window in Redis, shared by every instance (REDIS_URL). */
export function createRedisRateLimiter(
  redis: Redis,
  options: RateLimitOptions & { prefix?: string },
): RateLimiter {
  const windowMs = options.windowSeconds * 1000;
  const prefix = options.prefix ?? 'linkhop:rl:';
  return {
    async hit(key) {
      const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, `${prefix}${key}`, String(windowMs))) as [
        number,
        number,
      ];
      return decide(options.limit, Number(count), Number(ttl));
    },
  };
}
