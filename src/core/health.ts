/**
 * Destination health (issue #33), decided without I/O: what a check's answer means, how a destination's
 * state moves, and when it is checked next. A destination is `down` after three consecutive failures
 * spread over at least 30 minutes, and `ok` again after one success: one bad minute never re-points a
 * link, and a site that is back is used at once.
 */

export type HealthState = 'unknown' | 'ok' | 'down';
/** `neutral`: the site answered but would not show us the page (401, 403, 429...): neither up nor down. */
export type CheckOutcome = 'ok' | 'failed' | 'neutral';

/** A check's answer: an HTTP status, or the reason there was none (dns_failed, timeout, network...). */
export interface CheckAnswer {
  status: number | null;
  error: string | null;
}

/** What a link shows of its destination's health (`health` in the API). */
export interface LinkHealth {
  state: HealthState;
  checkedAt: string | null;
  since: string | null;
  lastStatus: number | null;
}

export interface DestinationHealth {
  state: HealthState;
  /** When `state` last changed (ISO 8601), null while it never did. */
  since: string | null;
  failures: number;
  /** When the current streak of failures began. */
  failingSince: string | null;
}

export const FAILURES_TO_DOWN = 3;
export const DOWN_AFTER_MS = 30 * 60_000;
/** Busy destinations (visited in the last day), down ones and a streak under way: every 15 minutes. */
export const BUSY_INTERVAL_MS = 15 * 60_000;
export const QUIET_INTERVAL_MS = 24 * 3600_000;

/** Errors that say the check could not be made from here at all (an address we may not reach). */
const NOT_OURS = new Set(['address_not_allowed', 'scheme_not_allowed', 'invalid_url']);

export function outcomeOf(answer: CheckAnswer): CheckOutcome {
  if (answer.status === null)
    return answer.error !== null && NOT_OURS.has(answer.error) ? 'neutral' : 'failed';
  const status = answer.status;
  if (status >= 200 && status < 400) return 'ok';
  if (status === 404 || status === 410 || status >= 500) return 'failed';
  return 'neutral';
}

/** The health after one check; a state that changes gets `since` = now. */
export function afterCheck(
  health: DestinationHealth,
  outcome: CheckOutcome,
  nowMs: number,
): DestinationHealth {
  const now = new Date(nowMs).toISOString();
  if (outcome === 'neutral') return health;
  if (outcome === 'ok') {
    return {
      state: 'ok',
      since: health.state === 'ok' ? health.since : now,
      failures: 0,
      failingSince: null,
    };
  }
  const failures = health.failures + 1;
  const failingSince = health.failingSince ?? now;
  const down =
    health.state === 'down' ||
    (failures >= FAILURES_TO_DOWN && nowMs - Date.parse(failingSince) >= DOWN_AFTER_MS);
  return {
    state: down ? 'down' : health.state,
    since: down && health.state !== 'down' ? now : health.since,
    failures,
    failingSince,
  };
}

/** When to check next: soon while it is busy, down or failing; else once a day. */
export function nextCheckAt(health: DestinationHealth, busy: boolean, nowMs: number): number {
  const soon = busy || health.state === 'down' || health.failures > 0;
  return nowMs + (soon ? BUSY_INTERVAL_MS : QUIET_INTERVAL_MS);
}
