import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFallbackRateLimiter } from '../../src/http/fallback-rate-limit.js';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
} from '../../src/http/rate-limit.js';
import { redisClientOptions } from '../../src/store/redis-clients.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

const failing: RateLimiter = {
  async hit() {
    throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
  },
  async peek() {
    throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
  },
};

describe('fallback rate limiter', () => {
  it('peeks at the local count while the shared limiter fails, without counting', async () => {
    const local = createMemoryRateLimiter({ limit: 1, windowSeconds: 60 });
    const limiter = createFallbackRateLimiter({ shared: failing, local });
    expect((await limiter.peek('k')).allowed).toBe(true);
    expect((await limiter.peek('k')).allowed).toBe(true);
    await limiter.hit('k');
    expect((await limiter.peek('k')).allowed).toBe(false);
    expect(limiter.mode()).toBe('local');
  });

  it('lets the shared limiter decide while it answers, counting every hit locally as well', async () => {
    const shared = createMemoryRateLimiter({ limit: 100, windowSeconds: 60 });
    const local = createMemoryRateLimiter({ limit: 3, windowSeconds: 60 });
    const limiter = createFallbackRateLimiter({ shared, local });
    for (let i = 0; i < 5; i++) expect((await limiter.hit('k')).allowed).toBe(true);
    expect(limiter.mode()).toBe('shared');
    // The local count saw all five: it already refuses this key.
    expect((await local.hit('k')).allowed).toBe(false);
  });

  it('falls back to the per-instance limit when the shared one fails, and keeps limiting', async () => {
    let now = 1_000_000;
    const local = createMemoryRateLimiter({ limit: 3, windowSeconds: 60, now: () => now });
    const limiter = createFallbackRateLimiter({
      shared: failing,
      local,
      now: () => now,
      retryAfterMs: 1_000,
    });
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push((await limiter.hit('k')).allowed);
    expect(allowed).toEqual([true, true, true, false]);
    expect(limiter.mode()).toBe('local');
    now += 1_001;
    // The cool-down is over: the shared limiter is tried again (and still fails, so local again).
    expect(limiter.mode()).toBe('shared');
    expect((await limiter.hit('k')).allowed).toBe(false);
    expect(limiter.mode()).toBe('local');
  });

  it('skips the shared limiter while it is known to be down, and goes back to it when it returns', async () => {
    let up = false;
    let sharedHits = 0;
    const shared: RateLimiter = {
      async hit() {
        sharedHits += 1;
        return { limit: 9, remaining: 8, resetSeconds: 60, allowed: true };
      },
      async peek() {
        return { limit: 9, remaining: 8, resetSeconds: 60, allowed: true };
      },
    };
    const local = createMemoryRateLimiter({ limit: 1, windowSeconds: 60 });
    const limiter = createFallbackRateLimiter({ shared, local, sharedUp: () => up });
    expect(limiter.mode()).toBe('local');
    expect((await limiter.hit('k')).limit).toBe(1);
    expect((await limiter.hit('k')).allowed).toBe(false);
    expect(sharedHits).toBe(0);
    up = true;
    expect(limiter.mode()).toBe('shared');
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, limit: 9 });
    expect(sharedHits).toBe(1);
  });
});

describe.skipIf(redisSkipReason !== null)('fallback rate limiter over a Redis that goes away', () => {
  let proxy: TcpProxy;
  let redis: Redis;
  beforeAll(async () => {
    const target = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    redis = new Redis(throughProxy(redisUrl ?? '', proxy), redisClientOptions);
    redis.on('error', () => undefined);
    await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    redis?.disconnect();
    await proxy?.close();
  });

  it('answers from the local limit at once while Redis is cut, and from the shared one after', async () => {
    const prefix = `linkhop:test:${randomBytes(4).toString('hex')}:`;
    const options = { limit: 2, windowSeconds: 60 };
    const limiter = createFallbackRateLimiter({
      shared: createRedisRateLimiter(redis, { ...options, prefix }),
      local: createMemoryRateLimiter(options),
      retryAfterMs: 0,
    });
    expect((await limiter.hit('a')).allowed).toBe(true);
    await proxy.cut();
    const started = Date.now();
    const during = [await limiter.hit('b'), await limiter.hit('b'), await limiter.hit('b')];
    expect(during.map((d) => d.allowed)).toEqual([true, true, false]);
    // Within the command timeout, not ioredis's default of retrying for seconds.
    expect(Date.now() - started).toBeLessThan(1_000);
    proxy.restore();
    for (let i = 0; i < 50 && redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(redis.status).toBe('ready');
    // Shared again: Redis's count for 'a' (1 so far) decides, not the local one.
    expect(await limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await redis.zcard(`${prefix}log:a`)).toBe(2);
    await redis.del(`${prefix}log:a`);
  });
});
