import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
} from '../../src/http/rate-limit.js';
import { connectRedis, redisSkipReason } from '../helpers/redis.js';

describe('memory rate limiter', () => {
  it('allows the limit in a window, refuses beyond it, and opens a new window after it', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter({ limit: 3, windowSeconds: 60, now: () => now });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('k'));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3]?.resetSeconds).toBe(60);
    now += 30_000;
    expect((await limiter.hit('k')).resetSeconds).toBe(30);
    expect((await limiter.hit('other')).allowed).toBe(true);
    now += 30_001;
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe.skipIf(redisSkipReason !== null)('Redis rate limiter', () => {
  const redis = redisSkipReason ? null : connectRedis();
  afterAll(async () => {
    await redis?.quit();
  });

  it('shares one count between instances', async () => {
    if (!redis) return;
    const prefix = `linkhop:test:${randomBytes(4).toString('hex')}:`;
    const a: RateLimiter = createRedisRateLimiter(redis, { limit: 5, windowSeconds: 60, prefix });
    const b: RateLimiter = createRedisRateLimiter(redis, { limit: 5, windowSeconds: 60, prefix });
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await (i % 2 === 0 ? a : b).hit('key-1'));
    expect(outcomes.map((o) => o.allowed)).toEqual([true, true, true, true, true, false]);
    expect(outcomes[5]?.remaining).toBe(0);
    expect(outcomes[5]?.resetSeconds).toBeGreaterThan(0);
    expect(outcomes[5]?.resetSeconds).toBeLessThanOrEqual(60);
    expect(await redis.pttl(`${prefix}key-1`)).toBeGreaterThan(0);
  });
});
