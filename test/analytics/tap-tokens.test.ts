import { createHmac, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryOneShot,
  createRedisOneShot,
  createTapTokens,
  type TapIssue,
} from '../../src/analytics/tap-tokens.js';
import { connectRedis, redisSkipReason } from '../helpers/redis.js';

const SECRET = 'tap-token-test-secret-0123456789abcdef';
const ctx: TapIssue = {
  tapId: 'b8f0c9de-2f57-4a43-9a0e-6f4f7f7a1c11',
  linkId: '6e0f5b8e-8c47-4b8f-a2f5-0d4f3e0c1a22',
  orgId: '0b7a8f3e-1c2d-4e5f-8a9b-0c1d2e3f4a33',
  slug: 'launch',
  shortHost: 'lnk.example',
  platformKey: 'youtube',
  sourceApp: 'instagram',
  country: 'US',
  city: 'Zürich',
  device: 'ios',
  ts: '2025-03-15T12:00:00.000Z',
  variant: 1,
  strategy: 'scheme',
};

/** A token signed as the issuer signs, from the raw payload fields (older or tampered layouts). */
function signFields(fields: unknown[]): string {
  const key = createHmac('sha256', SECRET).update('linkhop/tap-token/v1').digest();
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

describe('tap tokens', () => {
  let clock = 1_742_040_000_000;
  const tokens = createTapTokens({ secret: SECRET, now: () => clock });

  it('round-trips the tap context and stays compact', () => {
    const token = tokens.issue(ctx);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(token.length).toBeLessThan(400);
    expect(tokens.verify(token)).toEqual({ ...ctx, exp: Math.floor(clock / 1000) + 600 });
  });

  it('refuses forged, tampered, foreign-key, expired and malformed tokens', () => {
    const token = tokens.issue(ctx);
    const [payload, signature] = token.split('.') as [string, string];
    const forgedFields = JSON.parse(Buffer.from(payload, 'base64url').toString());
    forgedFields[2] = randomUUID();
    const forgedPayload = Buffer.from(JSON.stringify(forgedFields)).toString('base64url');
    expect(tokens.verify(`${forgedPayload}.${signature}`)).toBeNull();
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    expect(tokens.verify(`${payload}.${flipped}`)).toBeNull();
    expect(
      createTapTokens({ secret: 'another-secret-0123456789', now: () => clock }).verify(token),
    ).toBeNull();
    // Signed with the raw secret rather than the purpose-bound subkey: refused too.
    const rawSigned = createHmac('sha256', SECRET).update(payload).digest('base64url');
    expect(tokens.verify(`${payload}.${rawSigned}`)).toBeNull();
    for (const bad of [
      undefined,
      null,
      42,
      {},
      '',
      '.',
      'abc',
      `${payload}.`,
      `.${signature}`,
      `${'a'.repeat(3000)}.${signature}`,
    ])
      expect(tokens.verify(bad)).toBeNull();
    const notJson = Buffer.from('not json').toString('base64url');
    expect(
      tokens.verify(`${notJson}.${createHmac('sha256', SECRET).update(notJson).digest('base64url')}`),
    ).toBeNull();
    const saved = clock;
    clock += 600_000;
    expect(tokens.verify(token)).toBeNull();
    clock = saved;
    expect(tokens.verify(token)).not.toBeNull();
  });

  it('carries the escape strategy; tokens issued before the field existed still verify, with a null strategy', () => {
    const token = tokens.issue(ctx);
    const fields = JSON.parse(
      Buffer.from(token.split('.')[0] as string, 'base64url').toString(),
    ) as unknown[];
    expect(fields.at(-1)).toBe('scheme');
    // The layout before per-cell outcomes: the same fields without the trailing strategy.
    const older = signFields(fields.slice(0, -1));
    expect(tokens.verify(older)).toEqual({ ...ctx, strategy: null, exp: fields[12] });
    // No strategy given: null, not a guess.
    const { strategy: _omit, ...withoutStrategy } = ctx;
    expect(tokens.verify(tokens.issue(withoutStrategy))?.strategy).toBeNull();
    // Signed by us but naming no strategy we know: refused rather than counted in a cell of its own.
    expect(tokens.verify(signFields([...fields.slice(0, -1), 'teleport']))).toBeNull();
  });

  it('redeems once: a replay of a genuine token is refused', async () => {
    const fresh = createTapTokens({ secret: SECRET, now: () => clock });
    const token = fresh.issue({ ...ctx, tapId: randomUUID() });
    expect(await fresh.redeem(token)).not.toBeNull();
    expect(await fresh.redeem(token)).toBeNull();
    expect(await fresh.redeem('forged.token')).toBeNull();
  });
});

describe('memory one-shot', () => {
  it('claims once, forgets after the ttl, and stays bounded', async () => {
    let now = 0;
    const oneShot = createMemoryOneShot({ maxEntries: 3, now: () => now });
    expect(await oneShot('a', 1000)).toBe(true);
    expect(await oneShot('a', 1000)).toBe(false);
    now = 1001;
    expect(await oneShot('a', 1000)).toBe(true);
    expect(await oneShot('b', 1000)).toBe(true);
    expect(await oneShot('c', 1000)).toBe(true);
    // Full: the oldest live id gives way to the newest.
    expect(await oneShot('d', 1000)).toBe(true);
    expect(await oneShot('d', 1000)).toBe(false);
    expect(await oneShot('c', 1000)).toBe(false);
    expect(await oneShot('a', 1000)).toBe(true);
  });
});

describe.skipIf(redisSkipReason !== null)('redis one-shot', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = connectRedis();
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it('SET NX PX: one instance wins, a second instance sees the replay, the key expires', async () => {
    const prefix = `linkhop:test:${randomUUID()}:`;
    const first = createRedisOneShot(redis, prefix);
    const second = createRedisOneShot(redis, prefix);
    const results = await Promise.all([first('tap-1', 500), second('tap-1', 500)]);
    expect(results.sort()).toEqual([false, true]);
    const ttl = await redis.pttl(`${prefix}tap-1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(500);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await first('tap-1', 500)).toBe(true);
  });
});
