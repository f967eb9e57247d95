import { describe, expect, it } from 'vitest';
import { cityOf, isoTimeOf, referrerHostOf } from '../../src/analytics/write/visit.js';

describe('visit headers for the click row', () => {
  it('referrer host: lowercased host of an absolute URL, null otherwise', () => {
    expect(referrerHostOf({ referer: 'https://L.Instagram.com/?u=https%3A%2F%2Fx' })).toBe('l.instagram.com');
    expect(referrerHostOf({ referer: 'http://user:pw@t.co:8080/abc' })).toBe('t.co');
    expect(referrerHostOf({ referer: 'android-app://com.google.android.gm/' })).toBe('com.google.android.gm');
    expect(referrerHostOf({ referer: 'https://[2001:db8::1]/x' })).toBe('[2001:db8::1]');
    expect(referrerHostOf({})).toBeNull();
    expect(referrerHostOf({ referer: '' })).toBeNull();
    expect(referrerHostOf({ referer: '/relative/path' })).toBeNull();
    expect(referrerHostOf({ referer: 'not a url' })).toBeNull();
  });

  it('city: the first edge header that gives one, decoded and bounded', () => {
    expect(cityOf({ 'cf-ipcity': 'Berlin' })).toBe('Berlin');
    expect(cityOf({ 'x-vercel-ip-city': 'S%C3%A3o%20Paulo' })).toBe('São Paulo');
    expect(cityOf({ 'cf-ipcity': '  ', 'cloudfront-viewer-city': 'Lyon' })).toBe('Lyon');
    expect(cityOf({ 'x-vercel-ip-city': '%E0%A4%A' })).toBeNull();
    expect(cityOf({ 'cf-ipcity': 'x'.repeat(65) })).toBeNull();
    expect(cityOf({ 'cf-ipcity': 'evil\u0000city' })).toBeNull();
    expect(cityOf({})).toBeNull();
  });
});

describe('isoTimeOf', () => {
  it('formats like toISOString, whichever second was formatted before', () => {
    const times = [
      0, 1, 999, 1000, 1_790_000_000_000, 1_790_000_000_007, 1_790_000_000_070, 1_790_000_000_700,
      1_790_000_000_999, 1_790_000_001_000, 1_790_000_000_500.7, -1, -86_400_000.5, 253_402_300_799_999,
      253_402_300_800_000,
    ];
    // Random visit times too, in and out of order, so that the cached second changes often.
    for (let i = 0; i < 500; i++) times.push(Math.floor(Math.random() * 4_000_000_000_000));
    for (let i = 0; i < 200; i++) times.push(1_790_000_000_000 + Math.floor(Math.random() * 3000));
    for (const time of times) expect(isoTimeOf(time), String(time)).toBe(new Date(time).toISOString());
    expect(() => isoTimeOf(Number.NaN)).toThrow(RangeError);
  });
});
