import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { WebhookEvent } from '../../webhooks/schema.js';
import { type ClickSource, DAY_MS, OUTCOMES, type Outcome, type OutcomeRow } from '../model.js';
import type { WriteRepo } from './repo.js';
import type { TapContext, TapTokens } from './tap-tokens.js';

export type AppEvent = 'app.opened' | 'app.browser' | 'app.broken';
/** The webhook's tap context (hosted-service.md section 6); the envelope's own `ts` is delivery time. */
export type TapEventData = Pick<
  TapContext,
  'slug' | 'shortHost' | 'platformKey' | 'sourceApp' | 'country' | 'city' | 'device' | 'ts'
> & { source: ClickSource };

export const isOutcome = (value: unknown): value is Outcome => OUTCOMES.includes(value as Outcome);

/** The webhook outbox, as the link and audience services use it (webhooks/service.ts EventOutbox). */
export interface OutcomeOutbox {
  emitIn(trx: Transaction<Database>, orgId: string, event: WebhookEvent, data: unknown): Promise<number>;
  nudge(): void;
}

/**
 * Inserts an outcome and, in the same transaction, its webhook event's deliveries (row.event); the worker is
 * nudged after the commit. Used for a fresh report and for a held one replayed after an outage: either way
 * the outcome and its event are both stored or neither, once.
 */
export function createOutcomeWriter(repo: Pick<WriteRepo, 'insertOutcome'>, outbox: OutcomeOutbox) {
  return async (row: OutcomeRow): Promise<boolean> => {
    const event = row.event;
    let queued = 0;
    const stored = await repo.insertOutcome(
      row,
      event
        ? async (trx) => {
            queued = await outbox.emitIn(trx, row.orgId, event.name as WebhookEvent, event.data);
          }
        : undefined,
    );
    if (queued > 0) outbox.nudge();
    return stored;
  };
}

export interface OutcomeRecorderDeps {
  repo: Pick<WriteRepo, 'insertOutcome'>;
  /** ANALYTICS=off: nothing is stored, but the webhook event still goes out once per tap. */
  analytics: boolean;
  tapTokens: Pick<TapTokens, 'redeem' | 'verify'>;
  /** Without a store (ANALYTICS=off) or an outbox: the event is queued on its own after the fact. */
  emitEvent: (orgId: string, event: AppEvent, data: TapEventData) => Promise<void>;
  /** With it, a stored outcome's event is queued in the outcome's own transaction. */
  outbox?: OutcomeOutbox;
  now: () => Date;
  /**
   * Keeps an outcome the store refused, to insert it again later (outcome-queue.ts): the token is already
   * redeemed, so without it the tap would be lost. Unset: the store's error is thrown.
   */
  hold?: (row: OutcomeRow) => void;
}

/**
 * The beacon's work: a genuine, unexpired, unclaimed token and a known outcome store the tap's first outcome
 * (with its rollups) and its app.* event. Answers true when this report counted; throws only when the
 * store fails and nothing holds the outcome (the route answers 204 either way).
 */
export function createOutcomeRecorder(deps: OutcomeRecorderDeps) {
  const write = deps.outbox
    ? createOutcomeWriter(deps.repo, deps.outbox)
    : (row: OutcomeRow) => deps.repo.insertOutcome(row);
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
    const { slug, shortHost, platformKey, sourceApp, country, city, device, ts } = tap;
    const event: AppEvent = `app.${outcome}`;
    const source = tap.source ?? 'link';
    const data: TapEventData = { slug, shortHost, platformKey, sourceApp, country, city, device, ts, source };
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
        // The tap's cell (escape-cells.ts): in-app browser, OS and the strategy its page used.
        sourceApp: tap.sourceApp,
        device: tap.device,
        strategy: tap.strategy ?? null,
        at: nowMs,
        ...(deps.outbox ? { event: { name: event, data } } : {}),
      };
      let stored: boolean;
      try {
        stored = await write(row);
      } catch (error) {
        if (!deps.hold) throw error;
        // Held with its event: both are written together when the store takes it.
        deps.hold(row);
        if (deps.outbox) return true;
        stored = true;
      }
      if (!stored) return false;
      if (deps.outbox) return true;
    }
    try {
      await deps.emitEvent(tap.orgId, event, data);
    } catch {
      // A webhook problem never undoes the recorded outcome.
    }
    return true;
  };
}
