import { describe, expect, it } from 'vitest';
import {
  afterCheck,
  BUSY_INTERVAL_MS,
  type CheckOutcome,
  type DestinationHealth,
  nextCheckAt,
  outcomeOf,
  QUIET_INTERVAL_MS,
} from '../../src/core/health.js';
import { GONE_SIGNALS, probeFor, validateGoneSignals } from '../../src/core/platforms/gone-signals.js';
import { destinationKey } from '../../src/health/key.js';

const MIN = 60_000;
const FRESH: DestinationHealth = { state: 'unknown', since: null, failures: 0, failingSince: null };

/** The health after a series of checks, each `minutes` after the start. */
function run(start: DestinationHealth, checks: [number, CheckOutcome][]): DestinationHealth {
  let health = start;
  for (const [minutes, outcome] of checks)
    health = afterCheck(health, outcome, Date.UTC(2026, 0, 1) + minutes * MIN);
  return health;
}

describe('what a check says', () => {
  it.each([
    [200, 'ok'],
    [204, 'ok'],
    [301, 'ok'],
    [404, 'failed'],
    [410, 'failed'],
    [500, 'failed'],
    [503, 'failed'],
    [401, 'neutral'],
    [403, 'neutral'],
    [429, 'neutral'],
    [400, 'neutral'],
  ] as const)('HTTP %i is %s', (status, outcome) => {
    expect(outcomeOf({ status, error: null })).toBe(outcome);
  });

  it.each([
    ['dns_failed', 'failed'],
    ['network', 'failed'],
    ['timeout', 'failed'],
    ['too_many_redirects', 'failed'],
    ['address_not_allowed', 'neutral'],
  ] as const)('no answer (%s) is %s', (error, outcome) => {
    expect(outcomeOf({ status: null, error })).toBe(outcome);
  });
});

describe('a destination turns down after 3 failures over 30 minutes, and up after one success', () => {
  it('three failures 15 minutes apart: down at the third', () => {
    const two = run(FRESH, [
      [0, 'ok'],
      [15, 'failed'],
      [30, 'failed'],
    ]);
    expect(two.state).toBe('ok');
    expect(two.failures).toBe(2);
    const down = afterCheck(two, 'failed', Date.UTC(2026, 0, 1) + 45 * MIN);
    expect(down).toEqual({
      state: 'down',
      since: '2026-01-01T00:45:00.000Z',
      failures: 3,
      failingSince: '2026-01-01T00:15:00.000Z',
    });
  });

  it('three failures within 30 minutes are not enough; a fourth after 30 minutes is', () => {
    const quick = run(FRESH, [
      [0, 'failed'],
      [1, 'failed'],
      [2, 'failed'],
      [29, 'failed'],
    ]);
    expect(quick.state).toBe('unknown');
    expect(quick.failures).toBe(4);
    expect(afterCheck(quick, 'failed', Date.UTC(2026, 0, 1) + 30 * MIN).state).toBe('down');
  });

  it('a success ends a streak, so failures must start over', () => {
    const broken = run(FRESH, [
      [0, 'failed'],
      [15, 'failed'],
      [20, 'ok'],
      [35, 'failed'],
      [50, 'failed'],
    ]);
    expect(broken.state).toBe('ok');
    expect(broken.failingSince).toBe('2026-01-01T00:35:00.000Z');
  });

  it('neutral answers (401, 403, 429) neither break nor extend a streak', () => {
    const before = run(FRESH, [[0, 'failed']]);
    expect(afterCheck(before, 'neutral', Date.UTC(2026, 0, 1) + 40 * MIN)).toBe(before);
  });

  it('down stays down through more failures (since unchanged), and one success brings it up', () => {
    const down = run(FRESH, [
      [0, 'failed'],
      [15, 'failed'],
      [30, 'failed'],
      [45, 'failed'],
    ]);
    expect(down.state).toBe('down');
    expect(down.since).toBe('2026-01-01T00:30:00.000Z');
    const up = afterCheck(down, 'ok', Date.UTC(2026, 0, 1) + 60 * MIN);
    expect(up).toEqual({ state: 'ok', since: '2026-01-01T01:00:00.000Z', failures: 0, failingSince: null });
  });
});

describe('when a destination is checked next', () => {
  const now = Date.UTC(2026, 0, 1);
  it('busy: every 15 minutes; quiet: daily; failing or down: every 15 minutes', () => {
    const ok: DestinationHealth = { state: 'ok', since: null, failures: 0, failingSince: null };
    expect(nextCheckAt(ok, true, now) - now).toBe(BUSY_INTERVAL_MS);
    expect(nextCheckAt(ok, false, now) - now).toBe(QUIET_INTERVAL_MS);
    expect(nextCheckAt({ ...ok, failures: 1 }, false, now) - now).toBe(BUSY_INTERVAL_MS);
    expect(nextCheckAt({ ...ok, state: 'down' }, false, now) - now).toBe(BUSY_INTERVAL_MS);
  });
});

describe('gone signals', () => {
  it('are valid data with sources and dates', () => {
    expect(validateGoneSignals(GONE_SIGNALS)).toBe(GONE_SIGNALS);
    expect(() => validateGoneSignals([{ ...GONE_SIGNALS[0], probe: 'http://x/{url}' } as never])).toThrow();
    expect(() => validateGoneSignals([{ ...GONE_SIGNALS[0], checked: 'yesterday' } as never])).toThrow();
  });

  it("ask YouTube's oEmbed for a YouTube video and nothing for other hosts", () => {
    const probe = probeFor(GONE_SIGNALS, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    expect(probe?.url).toBe(
      'https://www.youtube.com/oembed?format=json&url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DdQw4w9WgXcQ',
    );
    expect(probe?.gone).toEqual([404]);
    expect(probeFor(GONE_SIGNALS, 'https://example.com/page')).toBeNull();
    expect(probeFor(GONE_SIGNALS, 'not a url')).toBeNull();
  });

  it('key destinations by the SHA-256 of their URL', () => {
    expect(destinationKey('https://example.com/')).toMatch(/^[0-9a-f]{64}$/);
    expect(destinationKey('https://example.com/')).not.toBe(destinationKey('https://example.com/a'));
  });
});
