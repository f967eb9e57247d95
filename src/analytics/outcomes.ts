import type { AnalyticsRepo } from './repo.js';
import { DAY_MS, OUTCOMES, type Outcome, type OutcomeRow } from './repo.js';
import type { TapContext, TapTokens } from './tap-tokens.js';

export type AppEvent = 'app.opened' | 'app.browser' | 'app.broken';
/** The webhook's tap context (hosted-service.md section 6); the envelope's own `ts` is delivery time. */
export type TapEventData = Pick<
  TapContext,
  'slug' | 'shortHost' | 'platformKey' | 'sourceApp' | 'country' | 'city' | 'device' | 'ts'
>;

export const isOutcome = (value: unknown): value is Outcome => OUTCOMES.includes(value as Outcome);

export interface OutcomeRecorderDeps {
  repo: Pick<AnalyticsRepo, 'insertOutcome'>;
  /** ANALYTICS=off: nothing is stored, but the webhook event still goes out once per tap. */
  analytics: boolean;
  tapTokens: Pick<TapTokens, 'redeem' | 'verify'>;
  emitEvent: (orgId: string, event: AppEvent, data: TapEventData) => Promise<void>;
  now: () => Date;
  /**
   * Keeps an outcome the store refused, to insert it again later (outcome-queue.ts): the token is already
   * redeemed, so without it the tap would be lost. Unset: the store's error is thrown.
   */
  hold?: (row: OutcomeRow) => void;
}

/**
 * The beacon's work: a genuine, unexpired, unclaimed token and a known outcome store the tap's first outcome
 * (with its rollups) and emit its app.* event. Answers true when this report counted; throws only when the
 * store fails (the route answers 204 either way).
 */
export function createOutcomeRecorder(deps: OutcomeRecorderDeps) {
  return async function recordOutcome(token: unknown, outcome: unknown): Promise<boolean> {
    // The outcome is checked first so a garbled report never burns a genuine token.
    if (!isOutcome(outcome)) return false;
    let tap: TapContext | null;
    try {
      tap = await deps.tapTokens.redeem(token);
    } catch {
      // The shared guard (Redis) is down: the store's primary key still lets only the first outcome count.
      tap = deps.analytics ? deps.tapTokens.verify(token) : null;
    }
    if (!tap) return false;
    const nowMs = deps.now().getTime();
    if (deps.analytics) {
      const tapMs = Date.parse(tap.ts);
      const row: OutcomeRow = {
        tapId: tap.tapId,
        orgId: tap.orgId,
        linkId: tap.linkId,
        // Counted on the day of the tap, so an outcome lands beside its click in every window.
        day: Math.floor((Number.isFinite(tapMs) ? tapMs : nowMs) / DAY_MS),
        outcome,
        variant: tap.variant ?? null,
        platformKey: tap.platformKey,
        at: nowMs,
      };
      let stored: boolean;
      try {
        stored = await deps.repo.insertOutcome(row);
      } catch (error) {
        if (!deps.hold) throw error;
        // The token is spent: keep the outcome and insert it when the store is back (the tap id is
        // the key, so the retry cannot count it twice).
        deps.hold(row);
        stored = true;
      }
      if (!stored) return false;
    }
    const { slug, shortHost, platformKey, sourceApp, country, city, device, ts } = tap;
    try {
      await deps.emitEvent(tap.orgId, `app.${outcome}`, {
        slug,
        shortHost,
        platformKey,
        sourceApp,
        country,
        city,
        device,
        ts,
      });
    } catch {
      // A webhook problem never undoes the recorded outcome.
    }
    return true;
  };
}
