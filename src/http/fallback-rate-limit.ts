import type { RateDecision, RateLimiter } from './rate-limit.js';

/**
 * A rate limit that stays a limit when its shared store (Redis) is away: every hit is also counted by a
 * per-instance limiter, and while the shared one is down or failing, that local count decides. With N
 * instances the effective limit during an outage is at most N times the shared one, never unlimited, and
 * never an error: a request is not refused or delayed because Redis is unreachable.
 */

export type RateLimitMode = 'shared' | 'local';

export interface FallbackRateLimiter extends RateLimiter {
  /** Which limiter decides now: the lead's /health shows it. */
  mode(): RateLimitMode;
}

export interface FallbackRateLimitOptions {
  shared: RateLimiter;
  local: RateLimiter;
  /** Whether the shared store is reachable (the Redis health tracker); while false no hit tries it. */
  sharedUp?: () => boolean;
  /** After a failed shared hit, how long hits stay local before the shared one is tried again. */
  retryAfterMs?: number;
  now?: () => number;
}

const DEFAULT_RETRY_AFTER_MS = 1_000;

export function createFallbackRateLimiter(options: FallbackRateLimitOptions): FallbackRateLimiter {
  const now = options.now ?? Date.now;
  const retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  const sharedUp = options.sharedUp ?? (() => true);
  // A failure that the tracker has not seen (a command timing out on a silent path) still switches to
  // local for a while, so not every request pays the command timeout.
  let failedUntil = 0;
  const sharedDecides = () => sharedUp() && now() >= failedUntil;
  /** The shared answer while it can be had, else the local one; a failure switches to local for a while. */
  async function decide(
    viaShared: () => Promise<RateDecision>,
    viaLocal: () => Promise<RateDecision>,
  ): Promise<RateDecision> {
    if (!sharedDecides()) return viaLocal();
    try {
      const shared = await viaShared();
      failedUntil = 0;
      return shared;
    } catch {
      failedUntil = now() + retryAfterMs;
      return viaLocal();
    }
  }
  return {
    mode: () => (sharedDecides() ? 'shared' : 'local'),
    // The per-instance count kept beside the shared one, in this process's memory.
    size: () => options.local.size?.() ?? 0,
    async hit(key): Promise<RateDecision> {
      // Counted locally on every hit, so the per-instance count is current the moment Redis goes away.
      const local = await options.local.hit(key);
      return decide(
        () => options.shared.hit(key),
        async () => local,
      );
    },
    peek: (key) =>
      decide(
        () => options.shared.peek(key),
        () => options.local.peek(key),
      ),
  };
}
