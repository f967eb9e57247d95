import { describe, expect, it } from 'vitest';
import { classifyVisitor, createVisitorClassifier } from '../../src/core/visitor.js';
import { UA_CORPUS } from './ua-corpus.js';

describe('classifyVisitor: the user-agent corpus', () => {
  it('has at least 70 real user agents, each named once', () => {
    expect(UA_CORPUS.length).toBeGreaterThanOrEqual(70);
    expect(new Set(UA_CORPUS.map((c) => c.name)).size).toBe(UA_CORPUS.length);
  });

  it.each(UA_CORPUS.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const visitor = classifyVisitor(c.ua);
    expect({ os: visitor.os, inApp: visitor.inApp, bot: visitor.bot, preview: visitor.preview }).toEqual({
      os: c.os,
      inApp: c.inApp,
      bot: c.bot,
      preview: c.preview,
    });
    expect(visitor.mobile).toBe(c.os === 'ios' || c.os === 'android');
    expect(visitor.prefetch).toBe(false);
  });
});

describe('classifyVisitor: edge cases', () => {
  it('treats a missing user agent as a plain, non-bot visitor', () => {
    const expected = { os: 'other', mobile: false, inApp: null, bot: false, preview: false, prefetch: false };
    expect(classifyVisitor(undefined)).toEqual(expected);
    expect(classifyVisitor('')).toEqual(expected);
  });

  it('never lets a bot look like a phone (Googlebot smartphone)', () => {
    const ua = UA_CORPUS.find((c) => c.name === 'Googlebot smartphone')?.ua;
    expect(classifyVisitor(ua)).toMatchObject({ bot: true, mobile: false, inApp: null });
  });

  it('reads prefetch and prerender from Sec-Purpose / Purpose', () => {
    const ua = UA_CORPUS[0]?.ua;
    expect(classifyVisitor(ua, 'prefetch').prefetch).toBe(true);
    expect(classifyVisitor(ua, 'prefetch;prerender').prefetch).toBe(true);
    expect(classifyVisitor(ua, 'Prefetch').prefetch).toBe(true);
    expect(classifyVisitor(ua, 'prerender').prefetch).toBe(true);
    expect(classifyVisitor(ua, '').prefetch).toBe(false);
    expect(classifyVisitor(ua, 'anything-else').prefetch).toBe(false);
    expect(classifyVisitor(ua, undefined).prefetch).toBe(false);
  });
});

/**
 * `text` (by default `ua` with its first character changed) made to land in `ua`'s slot of the
 * classifier's front table: same length, same characters at the positions the slot is computed from.
 */
function sameSlot(ua: string, text = `${ua[0] === 'N' ? 'M' : 'N'}${ua.slice(1)}`): string {
  const n = ua.length;
  const chars = [...text.padEnd(n, ' ').slice(0, n)];
  for (const at of [n - 1, n >> 1, n >> 2]) chars[at] = ua[at] ?? ' ';
  return chars.join('');
}

describe('createVisitorClassifier', () => {
  it('returns the same classification as classifyVisitor, with and without a purpose', () => {
    const classify = createVisitorClassifier();
    for (const c of UA_CORPUS) {
      expect(classify(c.ua)).toEqual(classifyVisitor(c.ua));
      expect(classify(c.ua)).toEqual(classifyVisitor(c.ua)); // second call: from the cache
      expect(classify(c.ua, 'prefetch')).toEqual(classifyVisitor(c.ua, 'prefetch'));
      expect(classify(c.ua)).toEqual(classifyVisitor(c.ua)); // the prefetch variant did not leak
    }
    expect(classify(undefined)).toEqual(classifyVisitor(undefined));
  });

  it('serves repeats from the cache and returns frozen results', () => {
    const classify = createVisitorClassifier({ cacheSize: 10 });
    const ua = UA_CORPUS[0]?.ua;
    const first = classify(ua);
    expect(classify(ua)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('is bounded: the least recently used entry is evicted past cacheSize', () => {
    const classify = createVisitorClassifier({ cacheSize: 50 });
    const uaOf = (i: number) =>
      `Mozilla/5.0 (Linux; Android 14; K) AppleWebKit/537.36 Chrome/${i}.0.0.0 Mobile`;
    const oldest = classify(uaOf(0));
    const kept = classify(uaOf(1));
    for (let i = 2; i < 50; i++) classify(uaOf(i));
    expect(classify(uaOf(1))).toBe(kept); // touched: now the youngest
    for (let i = 50; i < 200; i++) classify(uaOf(i)); // far more than cacheSize distinct agents
    classify(sameSlot(uaOf(0))); // and out of the front table's slot too
    const again = classify(uaOf(0));
    expect(again).not.toBe(oldest); // evicted, classified afresh
    expect(again).toEqual(oldest);
    const recent = classify(uaOf(199));
    expect(classify(uaOf(199))).toBe(recent);
  });

  it('tells apart user agents that share a slot of the front table', () => {
    const classify = createVisitorClassifier({ cacheSize: 50 });
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
    // Same length and same characters where the slot is read (positions 22, 44 and 88, in the padding);
    // another device elsewhere.
    const collider = sameSlot(iphone, 'Android 14; Pixel 8');
    expect(collider.length).toBe(iphone.length);
    for (let round = 0; round < 3; round++) {
      expect(classify(iphone)).toEqual(classifyVisitor(iphone));
      expect(classify(collider)).toEqual(classifyVisitor(collider));
    }
    expect(classify(iphone).os).toBe('ios');
    expect(classify(collider).os).toBe('android');
    expect(classify(iphone)).toBe(classify(iphone));
  });

  it('classifies huge user agents without caching them', () => {
    const classify = createVisitorClassifier({ cacheSize: 5 });
    const huge = `Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) ${'x'.repeat(5000)} Safari/604.1`;
    const a = classify(huge);
    expect(a).toEqual(classifyVisitor(huge));
    expect(classify(huge)).not.toBe(a);
  });

  it('rejects a nonsensical cache size', () => {
    expect(() => createVisitorClassifier({ cacheSize: 0 })).toThrow(RangeError);
  });
});
