import { Redis } from 'ioredis';

/** Redis for tests, when REDIS_URL_TEST is set; each test uses its own key prefix. */
export const redisUrl = process.env.REDIS_URL_TEST;
export const redisSkipReason = redisUrl ? null : 'REDIS_URL_TEST is not set: Redis suites skipped';
if (redisSkipReason) console.warn(`[linkhop tests] ${redisSkipReason}`);

export function connectRedis(): Redis {
  if (!redisUrl) throw new Error('REDIS_URL_TEST is not set');
  return new Redis(redisUrl, { maxRetriesPerRequest: 2 });
}
