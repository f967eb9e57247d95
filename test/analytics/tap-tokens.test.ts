import { createHmac, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryOneShot,
  createRedisOneShot,
  createTapTokens,
  type TapIssue,
} from '../../src/analytics/write/tap-tokens.js';
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

/** A token's payload fields, as signed. */
function payloadFields(token: string): unknown[] {
  return JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()) as unknown[];
}

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
    expect(tokens.verify(token)).toEqual({ ...ctx, source: 'link', exp: Math.floor(clock / 1000) + 600 });
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

  it('carries the escape strategy; a token signed with an unknown one is refused', () => {
    expect(tokens.verify(tokens.issue(ctx))?.strategy).toBe('scheme');
    // No strategy given: null, not a guess.
    const { strategy: _omit, ...withoutStrategy } = ctx;
    expect(tokens.verify(tokens.issue(withoutStrategy))?.strategy).toBeNull();
    // Signed by us but naming no strategy we know: refused rather than counted in a cell of its own.
    const fields = payloadFields(tokens.issue(ctx));
    expect(fields[8]).toBe('scheme');
    expect(tokens.verify(signFields(fields.with(8, 'teleport')))).toBeNull();
  });

  it('still reads version 1 tokens (tap id first), with and without the trailing strategy', () => {
    const exp = Math.floor(clock / 1000) + 600;
    const v1: unknown[] = [1, ctx.tapId, ctx.linkId, ctx.orgId, ctx.slug, ctx.shortHost, ctx.platformKey];
    v1.push(ctx.sourceApp, ctx.country, ctx.city, ctx.device, ctx.ts, exp, ctx.variant);
    expect(tokens.verify(signFields([...v1, 'scheme']))).toEqual({ ...ctx, source: 'link', exp });
    expect(tokens.verify(signFields(v1))).toEqual({ ...ctx, source: 'link', strategy: null, exp });
    expect(tokens.verify(signFields([...v1, 'teleport']))).toBeNull();
    expect(tokens.verify(signFields([3, ...v1.slice(1)]))).toBeNull();
  });

  it("carries a QR code's visit as a trailing field only QR visits pay for; older tokens read as link", () => {
    const plain = tokens.issue(ctx);
    const scanned = tokens.issue({ ...ctx, source: 'qr' });
    expect(tokens.verify(scanned)?.source).toBe('qr');
    expect(tokens.verify(plain)?.source).toBe('link');
    // A link visit's token is byte for byte what it was before sources: nothing trails the tap id.
    expect(payloadFields(plain).at(-1)).toBe(ctx.tapId);
    expect(payloadFields(scanned).slice(-2)).toEqual([ctx.tapId, 'qr']);
    // Signed by us, but with a source we never write, or more fields after it: refused.
    const fields = payloadFields(scanned);
    expect(tokens.verify(signFields(fields.with(-1, 'email')))).toBeNull();
    expect(tokens.verify(signFields([...fields, 'more']))).toBeNull();
  });

  it('a cell prefix kept across visits gives the same token as a whole issue, whatever its byte length', () => {
    // Slugs of every length modulo 3, and a multi-byte character, exercise the prefix's padding.
    for (const slug of ['a', 'ab', 'abc', 'abcd', 'käse', 'kä', 'k']) {
      const cell = { ...ctx, slug, shortHost: 'bücher.example' };
      const shared = tokens.prefix(cell);
      const own = {
        tapId: ctx.tapId,
        country: ctx.country,
        city: ctx.city,
        ts: ctx.ts,
        variant: ctx.variant,
      };
      const visits = [
        own,
        { ...own, tapId: randomUUID(), city: null, country: null, variant: null },
        { ...own, source: 'qr' as const },
      ];
      for (const visit of visits) {
        const token = tokens.issueWith(shared, visit);
        expect(token).toBe(tokens.issue({ ...cell, ...visit }));
        const exp = Math.floor(clock / 1000) + 600;
        expect(tokens.verify(token)).toEqual({ ...cell, source: 'link', ...visit, exp });
      }
    }
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
