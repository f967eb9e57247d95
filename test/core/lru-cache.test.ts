import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/core/lru-cache.js';

describe('LruCache', () => {
  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the youngest
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('replaces a value without growing, and deletes', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(2);
    expect(cache.delete('a')).toBe(true);
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps a recently read entry through a quarter of the capacity of insertions, and evicts the unread', () => {
    const cache = new LruCache<number, number>(8);
    for (let key = 0; key < 8; key++) cache.set(key, key);
    // Key 0 is the oldest: reading it moves it to the young end, so 1 is evicted first.
    expect(cache.get(0)).toBe(0);
    cache.set(8, 8);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(0)).toBe(0);
    // Read on every insertion (a hot link), key 0 outlives any number of them; the rest rotate out in order.
    for (let key = 9; key < 100; key++) {
      cache.set(key, key);
      expect(cache.get(0)).toBe(0);
    }
    expect(cache.size).toBe(8);
    expect(cache.get(93)).toBe(93);
    expect(cache.get(92)).toBeUndefined();
  });

  it('refuses a capacity below one', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
