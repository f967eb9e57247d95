import { sql, type Transaction } from 'kysely';
import { type Store, unitOfWork } from '../store/database.js';
import type { Database } from '../store/schema.js';

/**
 * The SQL of link expiry (issue #20): the click counter, the once-only claim of link.expired, the sweep's
 * query. Each write is one conditional statement, so two instances racing
 * on the same link both get an exact answer from the database.
 */

/** Expired as of `now`: the end date has passed or the counted clicks reached the limit. */
export const expiredSql = (now: string) =>
  sql<boolean>`((expires_at is not null and expires_at <= ${now}) or (max_clicks is not null and click_count >= max_clicks))`;

export function createExpiryRepo(store: Store) {
  const { db } = store;
  return {
    /** The claim's unit of work, opened by the expiry service: the claim and the event's outbox rows. */
    transaction: unitOfWork(db),

    /**
     * Counts one human click against the link's limit, only while it is under the limit: the new count,
     * or null when the limit was already reached (or the link has none).
     */
    async countClick(linkId: string): Promise<{ count: number; max: number } | null> {
      const row = await db
        .updateTable('links')
        .set({ click_count: sql`click_count + 1` })
        .where('id', '=', linkId)
        .where('max_clicks', 'is not', null)
        .where(sql<boolean>`click_count < max_clicks`)
        .returning(['click_count', 'max_clicks'])
        .executeTakeFirst();
      return row ? { count: Number(row.click_count), max: Number(row.max_clicks) } : null;
    },

    /**
     * Marks an expired link's event as claimed, in the caller's transaction: true for the one caller that
     * claimed it, false for everyone after (and for a link that is not expired as of `now`).
     */
    async claimExpiry(trx: Transaction<Database>, linkId: string, now: string): Promise<boolean> {
      const claimed = await trx
        .updateTable('links')
        .set({ expired_at: now })
        .where('id', '=', linkId)
        .where('expired_at', 'is', null)
        .where(expiredSql(now))
        .executeTakeFirst();
      return Number(claimed.numUpdatedRows) === 1;
    },

    /** Expired links whose event nobody claimed yet, oldest end date first. */
    async dueForExpiry(now: string, limit: number): Promise<{ id: string; orgId: string; tier: string }[]> {
      const rows = await db
        .selectFrom('links')
        .innerJoin('organizations', 'organizations.id', 'links.org_id')
        .select(['links.id as id', 'links.org_id as orgId', 'organizations.tier as tier'])
        .where('links.expired_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb.and([eb('links.expires_at', 'is not', null), eb('links.expires_at', '<=', now)]),
            eb.and([
              eb('links.max_clicks', 'is not', null),
              sql<boolean>`links.click_count >= links.max_clicks`,
            ]),
          ]),
        )
        .orderBy('links.expires_at')
        .limit(limit)
        .execute();
      return rows;
    },

    async orgTier(orgId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('organizations')
        .select('tier')
        .where('id', '=', orgId)
        .executeTakeFirst();
      return row?.tier;
    },
  };
}

export type ExpiryRepo = ReturnType<typeof createExpiryRepo>;
