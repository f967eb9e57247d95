import { describe, expect, it } from 'vitest';
import type { ClickInput } from '../../src/analytics/write/click-buffer.js';
import {
  createClickRingBuffer,
  createClickRingReader,
  createClickRingWriter,
  MAX_DICTIONARY,
  readCounters,
} from '../../src/analytics/write/click-ring.js';
import { ESCAPE_STRATEGIES } from '../../src/core/escape/index.js';
import { clickInput, NOW } from './setup.js';

/** Clicks that between them use every field, null and not, odd strings included. */
function variedClicks(count: number): ClickInput[] {
  const devices = ['ios', 'android', 'desktop', 'other'] as const;
  return Array.from({ length: count }, (_, i) =>
    clickInput({
      linkId: `link-${i % 7}`,
      orgId: `org-${i % 3}`,
      at: NOW + i * 1_234,
      bot: i % 5 === 0,
      variant: i % 4 === 0 ? null : i % 4,
      routed: i % 3 === 0 ? null : `https://example.com/r/${i % 11}?utm_source=ig&q=ü`,
      country: i % 6 === 0 ? null : ['US', 'DE', 'JP'][i % 3],
      city: i % 2 === 0 ? null : ['São Paulo', 'Zürich', '東京', 'x'][i % 4],
      device: devices[i % 4],
      sourceApp: i % 3 === 1 ? 'instagram' : null,
      referrerHost: i % 4 === 1 ? 'l.instagram.com' : null,
      platformKey: i % 2 === 1 ? 'youtube' : null,
      tapId: i % 3 === 2 ? `0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}` : null,
      // Every strategy, carried in the head word, on the clicks that were served an escape page.
      strategy: i % 3 === 2 ? (ESCAPE_STRATEGIES[i % ESCAPE_STRATEGIES.length] ?? null) : null,
      // Visits to expired links (issue #20) carry the flag across; the others have no such key.
      ...(i % 7 === 3 ? { expired: true } : {}),
      // Scans of a QR code carry their source across; the others have no such key.
      ...(i % 5 === 2 ? { source: 'qr' as const } : {}),
    }),
  );
}

function drainAll(reader: ReturnType<typeof createClickRingReader>): ClickInput[] {
  const out: ClickInput[] = [];
  reader.drain((click) => out.push(click));
  return out;
}

describe('click ring', () => {
  it('hands every field of every click across, in order, and counts them', () => {
    const ring = createClickRingBuffer(2 ** 16);
    const writer = createClickRingWriter(ring);
    const reader = createClickRingReader(ring);
    const clicks = variedClicks(500);
    for (const click of clicks) expect(writer.record(click)).toBe(true);
    expect(drainAll(reader)).toEqual(clicks);
    expect(drainAll(reader)).toEqual([]);
    expect(readCounters(ring)).toMatchObject({ recorded: 500, consumed: 500, ringDropped: 0 });
  });

  it('keeps records whole across the end of the ring, lap after lap', () => {
    const ring = createClickRingBuffer(256);
    const writer = createClickRingWriter(ring);
    const reader = createClickRingReader(ring);
    const clicks = variedClicks(2_000);
    const received: ClickInput[] = [];
    // Uneven batches, so records start at every offset of the ring.
    for (let i = 0; i < clicks.length; ) {
      const batch = 1 + (i % 5);
      for (const click of clicks.slice(i, i + batch)) expect(writer.record(click)).toBe(true);
      i += batch;
      reader.drain((click) => received.push(click));
    }
    expect(received).toEqual(clicks);
  });

  it('drops and counts a click that does not fit, and takes clicks again once the reader caught up', () => {
    const ring = createClickRingBuffer(256);
    const writer = createClickRingWriter(ring);
    const reader = createClickRingReader(ring);
    const clicks = variedClicks(100);
    const accepted = clicks.filter((click) => writer.record(click));
    expect(accepted.length).toBeGreaterThan(5);
    expect(accepted.length).toBeLessThan(100);
    expect(readCounters(ring).ringDropped).toBe(100 - accepted.length);
    // A dropped click defined nothing: what was taken reads back exactly.
    expect(drainAll(reader)).toEqual(accepted);
    const later = variedClicks(3);
    for (const click of later) expect(writer.record(click)).toBe(true);
    expect(drainAll(reader)).toEqual(later);
  });

  it('starts the dictionary over past its bound without mixing up strings', () => {
    const ring = createClickRingBuffer(2 ** 16);
    const writer = createClickRingWriter(ring);
    const reader = createClickRingReader(ring);
    const received: ClickInput[] = [];
    const sent: ClickInput[] = [];
    for (let i = 0; i < MAX_DICTIONARY + 5_000; i++) {
      // A new city each time (open-ended), and the same link throughout (defined again after the reset).
      const click = clickInput({ linkId: 'link-hot', city: `city ${i}`, at: NOW + i, strategy: null });
      expect(writer.record(click)).toBe(true);
      sent.push(click);
      if (i % 1_000 === 0) reader.drain((c) => received.push(c));
    }
    reader.drain((c) => received.push(c));
    expect(received).toEqual(sent);
    expect(writer.dictionary().length).toBeLessThanOrEqual(MAX_DICTIONARY);
  });

  it('a reader started later with the writer dictionary reads what follows (a restarted writer thread)', () => {
    const ring = createClickRingBuffer(2 ** 12);
    const writer = createClickRingWriter(ring);
    const first = createClickRingReader(ring);
    const before = variedClicks(40);
    for (const click of before) writer.record(click);
    expect(drainAll(first)).toEqual(before);
    // The first reader is gone; these clicks only use strings it was told about.
    const after = variedClicks(40).map((click) => ({ ...click, at: click.at + 1 }));
    for (const click of after) writer.record(click);
    const second = createClickRingReader(ring, writer.dictionary());
    expect(drainAll(second)).toEqual(after);
  });

  it('with a scheduler, publishes once per scheduled call: nothing is visible before, everything after', () => {
    const ring = createClickRingBuffer(2 ** 12);
    const scheduled: (() => void)[] = [];
    const writer = createClickRingWriter(ring, { schedule: (publish) => scheduled.push(publish) });
    const reader = createClickRingReader(ring);
    const clicks = variedClicks(30);
    for (const click of clicks.slice(0, 20)) expect(writer.record(click)).toBe(true);
    expect(scheduled).toHaveLength(1);
    expect(drainAll(reader)).toEqual([]);
    expect(readCounters(ring).recorded).toBe(0);
    scheduled[0]?.();
    expect(drainAll(reader)).toEqual(clicks.slice(0, 20));
    // The next click asks again; an explicit publish (a flush, a stop) does not wait for the scheduler.
    for (const click of clicks.slice(20)) writer.record(click);
    expect(scheduled).toHaveLength(2);
    writer.publish();
    expect(drainAll(reader)).toEqual(clicks.slice(20));
    expect(readCounters(ring)).toMatchObject({ recorded: 30, consumed: 30 });
    scheduled[1]?.();
    expect(drainAll(reader)).toEqual([]);
    expect(readCounters(ring).recorded).toBe(30);
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => createClickRingBuffer(1000)).toThrow(RangeError);
  });
});
