import { describe, expect, it } from 'vitest';
import { clickRow, monthOf, outcomeRow, precedenceOf } from '../../../src/analytics/clickhouse/rows.js';
import { clickInput, NOW } from '../setup.js';

describe('ClickHouse rows: a click and an outcome as the tables store them', () => {
  it('keeps the SQL store checks, writes absent values as empty, days and months in UTC', () => {
    const row = clickRow(
      clickInput({ at: Date.UTC(2025, 1, 28, 23, 59), country: 'de', referrerHost: 'T.CO', variant: 2 }),
      'b-1',
      7,
    );
    expect(row).toMatchObject({
      day: '2025-02-28',
      batch_id: 'b-1',
      seq: 7,
      country: 'DE',
      referrer_host: 't.co',
      city: '',
      tap_id: '',
      variant: 2,
      cell: '',
      qr: 0,
      expired: 0,
    });
    expect(monthOf(Math.floor(Date.UTC(2025, 1, 28, 23, 59) / 86_400_000))).toBe(202502);
    expect(monthOf(Math.floor(Date.UTC(2025, 2, 1, 0, 0) / 86_400_000))).toBe(202503);
  });

  it('encodes a tap served an escape page as its cell, and a QR or expired visit by its flag', () => {
    const tap = clickRow(
      clickInput({ sourceApp: 'instagram', device: 'ios', platformKey: 'youtube', strategy: 'universal' }),
      'b',
      0,
    );
    expect(tap.cell).toBe('instagram|ios|youtube|universal');
    expect(
      clickRow(clickInput({ device: 'desktop', platformKey: 'x', strategy: 'universal' }), 'b', 0).cell,
    ).toBe('');
    expect(clickRow(clickInput({ source: 'qr', expired: true }), 'b', 0)).toMatchObject({
      qr: 1,
      expired: 1,
    });
  });

  it('never builds a row ClickHouse would refuse (a poison batch would be retried for ever)', () => {
    expect(clickRow(clickInput({ at: -5 }), 'b', 0)).toMatchObject({ at: 0, day: '1970-01-01' });
    expect(clickRow(clickInput({ at: 8.64e15 }), 'b', 0).day).toBe('2105-12-31');
    expect(clickRow(clickInput({ variant: 2 ** 40 }), 'b', 0).variant).toBeNull();
  });

  it('an earlier outcome takes precedence, so merges keep the first', () => {
    expect(precedenceOf(NOW)).toBeGreaterThan(precedenceOf(NOW + 1));
    const row = outcomeRow({
      tapId: 't',
      orgId: 'o',
      linkId: 'l',
      day: 20162,
      outcome: 'opened',
      variant: null,
      platformKey: null,
      at: NOW,
    });
    expect(row).toMatchObject({ day: '2025-03-15', platform_key: '', cell: '', variant: null, at: NOW });
  });
});
