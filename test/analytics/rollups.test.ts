import { describe, expect, it } from 'vitest';
import type { ClickRow } from '../../src/analytics/model.js';
import { Increments } from '../../src/analytics/write/increments.js';
import { addClick, addClicks, toRow } from '../../src/analytics/write/rollups.js';
import { clickInput, DAY, NOW } from './setup.js';

/**
 * The batch writer folds a batch's clicks by shape before rolling them up (rollups.ts, addClicks). Folding
 * must never change a count: the same increments as rolling every click up on its own.
 */

const counts = (inc: Increments) =>
  Object.fromEntries(
    inc.rows.map((row) => [
      `${row.org_id} ${row.link_id} ${row.day} ${row.dimension} ${row.value}`,
      row.count,
    ]),
  );

function oneByOne(rows: readonly ClickRow[]): Increments {
  const inc = new Increments();
  for (const row of rows) addClick(inc, row);
  return inc;
}

function folded(rows: readonly ClickRow[]): Increments {
  const inc = new Increments();
  addClicks(inc, rows);
  return inc;
}

describe('folding a batch by shape', () => {
  it('counts exactly what one-by-one roll-ups count, across links, hours, days, bots and every dimension', () => {
    const countries = ['US', 'DE', null];
    const devices = ['ios', 'android', 'desktop', 'other'] as const;
    const platforms = ['youtube', null, 'spotify'];
    const referrers = ['t.co', null, 'l.instagram.com', 'www.google.com'];
    const apps = ['instagram', 'tiktok', null];
    const strategies = ['scheme', 'x-safari', 'intent', 'universal'] as const;
    const rows: ClickRow[] = [];
    for (let i = 0; i < 3000; i++) {
      rows.push(
        toRow(
          clickInput({
            linkId: `link-${i % 7}`,
            orgId: i % 11 === 0 ? 'org-2' : 'org-1',
            at: NOW + (i % 13) * 3_600_000 + (i % 3) * DAY,
            bot: i % 17 === 0,
            variant: i % 5 === 0 ? i % 3 : null,
            country: countries[i % countries.length] ?? null,
            device: devices[i % devices.length] ?? 'other',
            platformKey: platforms[i % platforms.length] ?? null,
            referrerHost: referrers[i % referrers.length] ?? null,
            // Escape-page taps carry their in-app browser and strategy into the per-cell rollups.
            sourceApp: apps[Math.floor(i / 19) % apps.length] ?? null,
            strategy: i % 23 < 5 ? null : (strategies[Math.floor(i / 29) % strategies.length] ?? null),
          }),
        ),
      );
    }
    const inc = folded(rows);
    expect(inc.rows.some((row) => row.dimension === 'cell')).toBe(true);
    expect(counts(inc)).toEqual(counts(oneByOne(rows)));
    // Folded: fewer increments were visited than clicks, and no row is listed twice.
    expect(new Set(inc.rows).size).toBe(inc.rows.length);
  });

  it('keeps counting right in a batch with more distinct values than a short shape key can number', () => {
    // 70,000 distinct referrers: past 65,535 the keys are spelled out; the shapes before and after must
    // still be told apart and counted once each.
    const rows = Array.from({ length: 70_000 }, (_, i) =>
      toRow(clickInput({ referrerHost: `r${i}.example`, device: i % 2 ? 'ios' : 'android' })),
    );
    expect(counts(folded(rows))).toEqual(counts(oneByOne(rows)));
    // Repeats of a shape first seen before the switch are still the same shape after it.
    const again = [...rows, ...rows.slice(0, 10)];
    expect(counts(folded(again))).toEqual(counts(oneByOne(again)));
  });
});
