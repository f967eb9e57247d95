import type { Kysely, Transaction } from 'kysely';
import type { CheckOutcome, DestinationHealth, HealthState } from '../core/health.js';
import type { Dialect, Executor } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { yieldingUnitOfWork } from '../store/yielding-work.js';
import { destinationKey } from './key.js';

/** A destination as the checker reads it. */
export interface DestinationRow extends DestinationHealth {
  id: string;
  url: string;
  host: string;
  checkedAt: string | null;
  lastStatus: number | null;
}

export interface CheckRow {
  checkedAt: string;
  outcome: CheckOutcome;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** A live link pointing at a destination: whom its state change concerns. */
export interface AffectedLink {
  id: string;
  orgId: string;
  host: string;
  slug: string;
  destination: string;
  fallbackUrl: string | null;
  /** The organization's plan (what the link shows, and whether its fallback applies). */
  tier: string;
}

/** The checks kept per destination (the dashboard shows them all). */
export const HISTORY = 20;

type Db = Kysely<Database> | Transaction<Database>;

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

/** Makes sure a live link's destination is checked (due at once when new), in the link write's transaction. */
export async function trackDestination(trx: Db, url: string, nowIso: string): Promise<void> {
  await trx
    .insertInto('destinations')
    .values({ id: destinationKey(url), url, host: hostOf(url), next_check_at: nowIso })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Due destinations `dueHosts` reads per host it may answer: room for hosts holding many due at once. */
const DUE_WINDOW_PER_HOST = 25;

/**
 * The checker is a background job beside the redirect: its transactions yield to the click writer instead
 * of waiting for its lock on the event loop, and skip SQLite's fsync (store/yielding-work.ts). A check
 * lost to a power cut is simply due again, and its leases expire.
 */
export function createHealthRepo(db: Executor, dialect: Dialect) {
  const transaction = yieldingUnitOfWork(db, dialect, { durable: false });
  return {
    transaction,

    track: trackDestination,

    /**
     * Hosts with a destination due and no live lease, oldest due first. It walks the due destinations in
     * next-check order through their index and stops after a window of them: grouping every due
     * destination by host scanned them all on each pass (20 ms at 20,000 due, the event loop held each
     * time, the redirect's p99 quadrupled beside it). Hosts beyond the window come up as those before them
     * are checked.
     */
    async dueHosts(nowIso: string, limit: number): Promise<string[]> {
      const hosts = new Set<string>();
      const window = limit * DUE_WINDOW_PER_HOST;
      // A host with many destinations due can fill a window alone: look again past the hosts found.
      for (let look = 0; look < 4 && hosts.size < limit; look++) {
        const rows = await db
          .selectFrom('destinations')
          .select('host')
          .where('next_check_at', '<=', nowIso)
          .$if(hosts.size > 0, (query) => query.where('host', 'not in', [...hosts]))
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('health_hosts')
                  .select('health_hosts.host')
                  .whereRef('health_hosts.host', '=', 'destinations.host')
                  .where('health_hosts.claimed_until', '>', nowIso),
              ),
            ),
          )
          .orderBy('next_check_at')
          .limit(window)
          .execute();
        for (const row of rows) if (hosts.size < limit) hosts.add(row.host);
        if (rows.length < window) break;
      }
      return [...hosts];
    },

    /**
     * Takes the leases of these hosts that no other instance holds live, in one transaction (one write of
     * the pass, not one per host): the hosts this instance now has.
     */
    async claimHosts(
      hosts: readonly string[],
      token: string,
      nowIso: string,
      untilIso: string,
    ): Promise<string[]> {
      if (hosts.length === 0) return [];
      return transaction(async (trx) => {
        const claimed: string[] = [];
        for (const host of hosts) {
          const row = await trx
            .insertInto('health_hosts')
            .values({ host, claimed_until: untilIso, claim_token: token })
            .onConflict((oc) =>
              oc
                .column('host')
                .doUpdateSet({ claimed_until: untilIso, claim_token: token })
                .where((eb) =>
                  eb.or([
                    eb('health_hosts.claimed_until', 'is', null),
                    eb('health_hosts.claimed_until', '<=', nowIso),
                  ]),
                ),
            )
            .returning('host')
            .executeTakeFirst();
          if (row) claimed.push(host);
        }
        return claimed;
      });
    },

    /** Gives a lease back, held until `untilIso` so that no instance asks the host again too soon. */
    async releaseHost(trx: Db, host: string, token: string, untilIso: string): Promise<void> {
      await trx
        .updateTable('health_hosts')
        .set({ claimed_until: untilIso, claim_token: null })
        .where('host', '=', host)
        .where('claim_token', '=', token)
        .execute();
    },

    /** The host's destinations due now, oldest first. */
    async dueOn(host: string, nowIso: string, limit: number): Promise<DestinationRow[]> {
      const rows = await db
        .selectFrom('destinations')
        .selectAll()
        .where('host', '=', host)
        .where('next_check_at', '<=', nowIso)
        .orderBy('next_check_at')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        url: row.url,
        host: row.host,
        state: row.state as HealthState,
        since: row.since,
        failures: Number(row.failures),
        failingSince: row.failing_since,
        checkedAt: row.checked_at,
        lastStatus: row.last_status === null ? null : Number(row.last_status),
      }));
    },

    /** The live (not archived) links pointing at a destination. */
    async linksOf(url: string): Promise<AffectedLink[]> {
      const rows = await db
        .selectFrom('links')
        .innerJoin('organizations', 'organizations.id', 'links.org_id')
        .select([
          'links.id',
          'links.org_id',
          'links.host',
          'links.slug',
          'links.destination',
          'links.fallback_url',
          'organizations.tier',
        ])
        .where('links.destination_key', '=', destinationKey(url))
        .where('links.destination', '=', url)
        .where('links.archived_at', 'is', null)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        orgId: row.org_id,
        host: row.host,
        slug: row.slug,
        destination: row.destination,
        fallbackUrl: row.fallback_url,
        tier: row.tier,
      }));
    },

    /** True when one of these links was visited on or after `fromDay` (days since the epoch). */
    async visitedSince(linkIds: readonly string[], fromDay: number): Promise<boolean> {
      if (linkIds.length === 0) return false;
      const row = await db
        .selectFrom('click_rollups')
        .select('link_id')
        .where('link_id', 'in', linkIds.slice(0, 500))
        .where('day', '>=', fromDay)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** A destination no live link points at any more is forgotten (a link coming back tracks it again). */
    async forget(trx: Db, id: string): Promise<void> {
      await trx.deleteFrom('destinations').where('id', '=', id).execute();
    },

    /** Writes a check's result, its history row (keeping the last HISTORY), and the next check's time. */
    async record(
      trx: Db,
      id: string,
      health: DestinationHealth,
      check: CheckRow,
      nextCheckAt: string,
    ): Promise<void> {
      await trx
        .updateTable('destinations')
        .set({
          state: health.state,
          since: health.since,
          failures: health.failures,
          failing_since: health.failingSince,
          checked_at: check.checkedAt,
          last_status: check.status,
          last_error: check.error,
          next_check_at: nextCheckAt,
        })
        .where('id', '=', id)
        .execute();
      await trx
        .insertInto('destination_checks')
        .values({
          destination_id: id,
          checked_at: check.checkedAt,
          outcome: check.outcome,
          status: check.status,
          error: check.error,
          duration_ms: check.durationMs,
        })
        .onConflict((oc) => oc.columns(['destination_id', 'checked_at']).doNothing())
        .execute();
      const oldest = await trx
        .selectFrom('destination_checks')
        .select('checked_at')
        .where('destination_id', '=', id)
        .orderBy('checked_at', 'desc')
        .offset(HISTORY - 1)
        .limit(1)
        .executeTakeFirst();
      if (oldest) {
        await trx
          .deleteFrom('destination_checks')
          .where('destination_id', '=', id)
          .where('checked_at', '<', oldest.checked_at)
          .execute();
      }
    },

    /** Organizations with a live link whose destination turned down since `sinceIso`. */
    async orgsWithNewlyDown(sinceIso: string): Promise<string[]> {
      const rows = await db
        .selectFrom('destinations')
        .innerJoin('links', 'links.destination_key', 'destinations.id')
        .select('links.org_id')
        .distinct()
        .where('destinations.state', '=', 'down')
        .where('destinations.since', '>=', sinceIso)
        .where('links.archived_at', 'is', null)
        .execute();
      return rows.map((row) => row.org_id);
    },

    /** Takes today's digest of an organization: true for the one caller that gets it (one mail a day). */
    async claimDigest(orgId: string, day: string): Promise<boolean> {
      const row = await db
        .insertInto('health_digests')
        .values({ org_id: orgId, sent_day: day })
        .onConflict((oc) =>
          oc.column('org_id').doUpdateSet({ sent_day: day }).where('health_digests.sent_day', '<', day),
        )
        .returning('org_id')
        .executeTakeFirst();
      return row !== undefined;
    },

    /** An organization's live links whose destination turned down since `sinceIso`, by slug. */
    async newlyDownLinks(
      orgId: string,
      sinceIso: string,
    ): Promise<
      { host: string; slug: string; destination: string; fallbackUrl: string | null; since: string }[]
    > {
      const rows = await db
        .selectFrom('links')
        .innerJoin('destinations', 'destinations.id', 'links.destination_key')
        .select(['links.host', 'links.slug', 'links.destination', 'links.fallback_url', 'destinations.since'])
        .where('links.org_id', '=', orgId)
        .where('links.archived_at', 'is', null)
        .where('destinations.state', '=', 'down')
        .where('destinations.since', '>=', sinceIso)
        .orderBy('links.slug')
        .limit(200)
        .execute();
      return rows.map((row) => ({
        host: row.host,
        slug: row.slug,
        destination: row.destination,
        fallbackUrl: row.fallback_url,
        since: row.since ?? sinceIso,
      }));
    },

    /** The addresses of an organization's owners and admins. */
    async adminEmails(orgId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select('users.email')
        .where('memberships.org_id', '=', orgId)
        .where('memberships.role', 'in', ['owner', 'admin'])
        .orderBy('users.email')
        .execute();
      return rows.map((row) => row.email);
    },

    /** The last checks of a destination, newest first. */
    async history(url: string): Promise<CheckRow[]> {
      const rows = await db
        .selectFrom('destination_checks')
        .selectAll()
        .where('destination_id', '=', destinationKey(url))
        .orderBy('checked_at', 'desc')
        .limit(HISTORY)
        .execute();
      return rows.map((row) => ({
        checkedAt: row.checked_at,
        outcome: row.outcome as CheckOutcome,
        status: row.status === null ? null : Number(row.status),
        error: row.error,
        durationMs: Number(row.duration_ms),
      }));
    },
  };
}

export type HealthRepo = ReturnType<typeof createHealthRepo>;

/** What visitedSince needs of the analytics store when it is not the main database (ANALYTICS_URL). */
export interface VisitReads {
  linkSums(
    orgId: string,
    ids: readonly string[],
    dimensions: string[],
    window: { from: number; to: number },
  ): Promise<{ clicks: number }[]>;
}

/**
 * visitedSince answered by the analytics store (ClickHouse), the links grouped by organization first
 * (its tables are keyed by organization): one `total` sum per organization from `fromDay` on. While it is
 * unreachable the links count as visited, so a destination keeps its frequent checks rather than fall
 * to a daily one because of an analytics outage.
 */
export function visitedSinceIn(db: Executor, analytics: VisitReads) {
  return async (linkIds: readonly string[], fromDay: number): Promise<boolean> => {
    if (linkIds.length === 0) return false;
    const rows = await db
      .selectFrom('links')
      .select(['id', 'org_id'])
      .where('id', 'in', linkIds.slice(0, 500))
      .execute();
    const byOrg = new Map<string, string[]>();
    for (const row of rows) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), row.id]);
    // A day far ahead: a clock a little off on either side still reads today's clicks.
    const window = { from: fromDay, to: fromDay + 3650 };
    try {
      for (const [orgId, ids] of byOrg) {
        const sums = await analytics.linkSums(orgId, ids, ['total'], window);
        if (sums.some((row) => row.clicks > 0)) return true;
      }
      return false;
    } catch {
      return true;
    }
  };
}
