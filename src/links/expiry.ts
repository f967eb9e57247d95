import { createPollingLoop } from '../jobs/polling-loop.js';
import type { Store } from '../store/database.js';
import { isConnectionError } from '../store/db-errors.js';
import type { OrgContext } from '../tenancy/context.js';
import { featuresOf, isTier } from '../tenancy/plans.js';
import type { EventOutbox } from '../webhooks/service.js';
import { createExpiryRepo, type ExpiryRepo } from './expiry-repo.js';
import type { LinkRecord, LinkRepo } from './repo.js';
import type { Link } from './schema.js';

/**
 * Campaign end dates and click limits at work (issue #20). A limited link's human clicks are counted at
 * the click by one conditional update, so the limit is exact across instances; link.expired is claimed
 * once (by the click that reached the limit, or by the sweep for an end date) with its outbox rows in the
 * claim's transaction. Nothing here ever stops a link from redirecting: an expiry only re-points it.
 */

/** The sweep's period: an end date's event fires within a minute of it. */
export const EXPIRY_SWEEP_MS = 20_000;
const SWEEP_BATCH = 100;

export interface LinkExpiryDeps {
  repo: ExpiryRepo;
  links: Pick<LinkRepo, 'find'>;
  /** The Link as the API shows it: the event's data. */
  present: (ctx: OrgContext, link: LinkRecord) => Link;
  events: EventOutbox;
  /** Drops the link from every instance's cache: its visits now go to the expired URL. */
  invalidate: (host: string, slug: string) => void;
  now: () => Date;
  onError: (error: unknown) => void;
  /** False while the database is known to be away: clicks then go straight to the destination. */
  storeUp?: () => boolean;
}

/** What counting a person's click answered: go to the destination, or the limit was already reached. */
export type ClickVerdict = 'destination' | 'expired';

export function createLinkExpiry(deps: LinkExpiryDeps) {
  const { repo } = deps;

  /** Claims the link's expiry and queues link.expired with it; true for the one caller that claimed it. */
  async function claim(orgId: string, linkId: string, tier: string | undefined): Promise<boolean> {
    const link = await deps.links.find(orgId, linkId);
    if (!link || tier === undefined) return false;
    const plan = isTier(tier) ? tier : 'sidekick';
    const ctx: OrgContext = { orgId, tier: plan, features: featuresOf(plan) };
    const now = deps.now().toISOString();
    let queued = 0;
    const claimed = await repo.transaction(async (trx) => {
      if (!(await repo.claimExpiry(trx, linkId, now))) return false;
      queued = await deps.events.emitIn(trx, orgId, 'link.expired', deps.present(ctx, link));
      return true;
    });
    if (!claimed) return false;
    if (queued > 0) deps.events.nudge();
    deps.invalidate(link.host, link.slug);
    return true;
  }

  async function sweep(): Promise<number> {
    const due = await repo.dueForExpiry(deps.now().toISOString(), SWEEP_BATCH);
    let claimed = 0;
    for (const link of due) if (await claim(link.orgId, link.id, link.tier)) claimed++;
    // Counted by claims, so a row another instance claimed meanwhile never keeps the loop going.
    return claimed;
  }

  const loop = createPollingLoop({
    pass: sweep,
    batchSize: SWEEP_BATCH,
    intervalMs: EXPIRY_SWEEP_MS,
    onError: deps.onError,
  });

  return {
    /**
     * Counts a person's click on a limited link. The click that reaches the limit still goes to the
     * destination, and claims the expiry; every click after it goes to the expired URL. When the store
     * cannot count (down), the link keeps redirecting to its destination: permanence before the limit.
     */
    async countClick(link: { id: string; orgId: string }): Promise<ClickVerdict> {
      let counted: { count: number; max: number } | null;
      if (deps.storeUp?.() === false) return 'destination';
      try {
        counted = await repo.countClick(link.id);
      } catch (error) {
        deps.onError(error);
        return 'destination';
      }
      if (counted === null) return 'expired';
      if (counted.count >= counted.max) {
        // The event is never worth failing the visit: the sweep claims it later if this fails.
        await repo
          .orgTier(link.orgId)
          .then((tier) => claim(link.orgId, link.id, tier))
          .catch(deps.onError);
      }
      return 'destination';
    },

    /** One pass over expired links whose event is unclaimed (tests; the loop runs it every 20 s). */
    sweep: () => loop.drain(),
    start: () => loop.start(),
    stop: () => loop.stop(),
  };
}

export type LinkExpiry = ReturnType<typeof createLinkExpiry>;

/** The expiry as the hosted service runs it, on its store, cache and outbox (src/compose/links.ts). */
export function composeLinkExpiry(parts: {
  store: Store;
  linkRepo: LinkRepo;
  links: { present: LinkExpiryDeps['present'] };
  events: EventOutbox;
  cache: { invalidate(host: string, slug: string): void };
  logger: { error(details: object, message: string): void };
  now: () => Date;
}): LinkExpiry {
  return createLinkExpiry({
    repo: createExpiryRepo(parts.store),
    links: parts.linkRepo,
    present: parts.links.present,
    events: parts.events,
    invalidate: (host, slug) => parts.cache.invalidate(host, slug),
    now: parts.now,
    storeUp: () => parts.store.health.up,
    // An outage is logged once by the pool's health tracker.
    onError: (error) => {
      if (!isConnectionError(error)) parts.logger.error({ err: error }, 'link expiry failed');
    },
  });
}
