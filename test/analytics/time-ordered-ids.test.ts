import { describe, expect, it } from 'vitest';
import { createTimeOrderedIds } from '../../src/analytics/rollups.js';

describe('raw click ids', () => {
  it('are UUIDv7-shaped, time first', () => {
    const id = createTimeOrderedIds()(Date.UTC(2026, 10, 24, 12));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id.slice(0, 13).replace('-', '')).toBe(Date.UTC(2026, 10, 24, 12).toString(16).padStart(12, '0'));
  });

  it('sort in recording order within one millisecond, and by time across milliseconds', () => {
    const next = createTimeOrderedIds();
    const at = Date.UTC(2026, 10, 24, 12);
    const sameMs = Array.from({ length: 500 }, () => next(at));
    expect([...sameMs].sort()).toEqual(sameMs);
    const later = next(at + 1);
    expect(later > (sameMs.at(-1) as string)).toBe(true);
    // A new millisecond restarts the sequence.
    expect(later.slice(15, 18)).toBe('000');
  });

  it('never repeat, even when two writers share a millisecond', () => {
    const [a, b] = [createTimeOrderedIds(), createTimeOrderedIds()];
    const at = Date.now();
    const ids = Array.from({ length: 5000 }, (_, i) => (i % 2 ? a : b)(at));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
