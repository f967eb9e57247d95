import { describe, expect, it } from 'vitest';
import { cityOf, referrerHostOf } from '../../src/analytics/visit.js';

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
