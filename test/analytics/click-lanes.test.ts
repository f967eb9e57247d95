import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClickInput } from '../../src/analytics/write/click-input.js';
import { laneOf, takeLane } from '../../src/analytics/write/click-lanes.js';

const click = (linkId: string, at: number) => ({ linkId, at }) as ClickInput;

describe('lanes of links', () => {
  it('a link always has the same lane, and links spread evenly over the lanes', () => {
    const ids = Array.from({ length: 10_000 }, () => randomUUID());
    for (const lanes of [2, 3]) {
      const counts = new Array<number>(lanes).fill(0);
      for (const id of ids) {
        const lane = laneOf(id, lanes);
        expect(laneOf(id, lanes)).toBe(lane);
        counts[lane] = (counts[lane] as number) + 1;
      }
      for (const count of counts)
        expect(Math.abs(count - ids.length / lanes)).toBeLessThan(ids.length * 0.05);
    }
    // Ids sharing a long suffix (an organization's, say) still spread.
    const suffixed = Array.from({ length: 100 }, (_, i) => `l${i}-${'x'.repeat(30)}`);
    expect(new Set(suffixed.map((id) => laneOf(id, 2))).size).toBe(2);
    expect(laneOf(randomUUID(), 1)).toBe(0);
  });

  it("takes a lane's oldest clicks up to the limit and keeps the rest in order", () => {
    const links = Array.from({ length: 12 }, () => randomUUID());
    const pending = Array.from({ length: 300 }, (_, i) => click(links[i % links.length] as string, i));
    const { taken, rest } = takeLane(pending, 1, 2, 50);
    expect(taken).toHaveLength(50);
    expect(taken.every((row) => laneOf(row.linkId, 2) === 1)).toBe(true);
    const ofLane1 = pending.filter((row) => laneOf(row.linkId, 2) === 1);
    expect(taken).toEqual(ofLane1.slice(0, 50));
    expect(rest).toEqual(pending.filter((row) => !taken.includes(row)));
    // One lane: a plain slice, oldest first.
    expect(takeLane(pending, 0, 1, 10)).toEqual({ taken: pending.slice(0, 10), rest: pending.slice(10) });
  });
});
