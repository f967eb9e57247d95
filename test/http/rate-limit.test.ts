import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
} from '../../src/http/rate-limit.js';
import { connectRedis, redisSkipReason } from '../helpers/redis.js';

/** Drives one limiter through the same clock-controlled script on every backend. */
function slidingWindowRules(make: (now: () => number) => RateLimiter) {
  it('allows the limit in any window, refuses beyond it, and frees a slot as the oldest hit ages out', async () => {
    let now = 1_000_000;
    const limiter = make(() => now);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('k'));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3]?.resetSeconds).toBe(60);
    now += 30_000;
    expect(await limiter.hit('k')).toMatchObject({ allowed: false, resetSeconds: 30 });
    expect((await limiter.hit('other')).allowed).toBe(true);
    now += 30_001;
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('does not let a window edge double the limit', async () => {
    let now = 5_000_000;
    const limiter = make(() => now);
    // One hit opens a fixed window; two more just before it ends; a fixed window then allows three more
    // just after its edge: five hits inside two seconds. The sliding log frees only the first hit's slot.
    expect((await limiter.hit('edge')).allowed).toBe(true);
    now += 59_000;
    for (let i = 0; i < 2; i++) expect((await limiter.hit('edge')).allowed).toBe(true);
    now += 2_000;
    const after = [];
    for (let i = 0; i < 3; i++) after.push((await limiter.hit('edge')).allowed);
    expect(after).toEqual([true, false, false]);
  });

  it('peeks without counting, and a refused hit is not counted', async () => {
    let now = 9_000_000;
    const limiter = make(() => now);
    for (let i = 0; i < 5; i++) expect((await limiter.peek('p')).allowed).toBe(true);
    for (let i = 0; i < 3; i++) await limiter.hit('p');
    expect(await limiter.peek('p')).toMatchObject({ allowed: false, remaining: 0 });
    for (let i = 0; i < 10; i++) await limiter.hit('p');
    now += 60_001;
    expect((await limiter.peek('p')).allowed).toBe(true);
  });
}

describe('memory rate limiter (sliding log)', () => {
  slidingWindowRules((now) => createMemoryRateLimiter({ limit: 3, windowSeconds: 60, now }));
});

describe.skipIf(redisSkipReason !== null)('Redis rate limiter (sliding log)', () => {
  const redis = redisSkipReason ? null : connectRedis();
  afterAll(async () => {
    await redis?.quit();
  });
  const freshPrefix = () => `linkhop:test:${randomBytes(4).toString('hex')}:`;

  slidingWindowRules((now) => {
    if (!redis) throw new Error('no redis');
    return createRedisRateLimiter(redis, { limit: 3, windowSeconds: 60, now, prefix: freshPrefix() });
  });

  it('shares one log between instances', async () => {
    if (!redis) return;
    const prefix = freshPrefix();
    const a: RateLimiter = createRedisRateLimiter(redis, { limit: 5, windowSeconds: 60, prefix });
    const b: RateLimiter = createRedisRateLimiter(redis, { limit: 5, windowSeconds: 60, prefix });
    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await (i % 2 === 0 ? a : b).hit('key-1'));
    expect(outcomes.map((o) => o.allowed)).toEqual([true, true, true, true, true, false]);
    expect(outcomes[5]?.remaining).toBe(0);
    expect(outcomes[5]?.resetSeconds).toBeGreaterThan(0);
    expect(outcomes[5]?.resetSeconds).toBeLessThanOrEqual(60);
    expect(await redis.pttl(`${prefix}log:key-1`)).toBeGreaterThan(0);
  });
});
