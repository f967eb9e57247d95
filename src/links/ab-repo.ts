import type { Selectable, Transaction } from 'kysely';
import { destinationKey } from '../health/key.js';
import { trackDestination } from '../health/repo.js';
import { type Store, unitOfWork } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { LinkRecord } from './rows-repo.js';
import type { AbAutoPromote, AbVariant } from './schema.js';

/**
 * The SQL of A/B tests that conclude (issue #33): the once-only conclusion of a link's running test (its
 * link row re-pointed and its `ab_tests` row written, in the service's transaction), the concluded tests
 * of a link, and the auto-promote sweep's query.
 */

/** Who concluded a test: a person or key (`user`), or its auto-promote rule (`auto`). */
export type PromotedBy = 'user' | 'auto';

/** One variant's numbers at the moment of promotion. */
export interface DecisionRow {
  visits: number;
  opened: number;
  browser: number;
  broken: number;
  probabilityBest: number;
}

/** A concluded test as stored. */
export interface AbTestRecord {
  id: string;
  orgId: string;
  linkId: string;
  variants: AbVariant[];
  startedAt: string;
  promotedAt: string;
  promotedVariant: number;
  promotedBy: PromotedBy;
  autoPromote: AbAutoPromote | null;
  decision: DecisionRow[];
}

const fromRow = (row: Selectable<Database['ab_tests']>): AbTestRecord => ({
  id: row.id,
  orgId: row.org_id,
  linkId: row.link_id,
  variants: JSON.parse(row.variants) as AbVariant[],
  startedAt: row.started_at,
  promotedAt: row.promoted_at,
  promotedVariant: Number(row.promoted_variant),
  promotedBy: row.promoted_by === 'auto' ? 'auto' : 'user',
  autoPromote: row.auto_promote === null ? null : (JSON.parse(row.auto_promote) as AbAutoPromote),
  decision: JSON.parse(row.decision) as DecisionRow[],
});

export function createAbRepo(store: Store) {
  const { db } = store;
  return {
    /** The conclusion's unit of work, opened by the A/B service: the link, the test row, event, audit row. */
    transaction: unitOfWork(db),

    /**
     * Concludes the test `before` was running: the link goes to `after`'s destination without variants or
     * rule, and the test is kept in `ab_tests`. Only while the row is still the one read (same
     * `updated_at`, variants still set): true for the one caller that concluded it, false for every other
     * (another instance's sweep, a person's promote or edit in between), with nothing written.
     */
    async conclude(
      trx: Transaction<Database>,
      before: LinkRecord,
      after: LinkRecord,
      test: AbTestRecord,
    ): Promise<boolean> {
      const updated = await trx
        .updateTable('links')
        .set({
          destination: after.destination,
          destination_key: destinationKey(after.destination),
          platform_key: after.platformKey,
          ab: null,
          ab_started_at: null,
          ab_auto_promote: null,
          updated_at: after.updatedAt,
        })
        .where('id', '=', before.id)
        .where('org_id', '=', before.orgId)
        .where('updated_at', '=', before.updatedAt)
        .where('ab', 'is not', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      // The winner is the destination now: destination health checks it like any other.
      await trackDestination(trx, after.destination, after.updatedAt);
      await trx
        .insertInto('ab_tests')
        .values({
          id: test.id,
          org_id: test.orgId,
          link_id: test.linkId,
          variants: JSON.stringify(test.variants),
          started_at: test.startedAt,
          promoted_at: test.promotedAt,
          promoted_variant: test.promotedVariant,
          promoted_by: test.promotedBy,
          auto_promote: test.autoPromote === null ? null : JSON.stringify(test.autoPromote),
          decision: JSON.stringify(test.decision),
        })
        .execute();
      return true;
    },

    /** The link's concluded tests, newest first. */
    async concluded(orgId: string, linkId: string, limit: number): Promise<AbTestRecord[]> {
      const rows = await db
        .selectFrom('ab_tests')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('link_id', '=', linkId)
        .orderBy('promoted_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(fromRow);
    },

    async find(orgId: string, linkId: string, id: string): Promise<AbTestRecord | undefined> {
      const row = await db
        .selectFrom('ab_tests')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('link_id', '=', linkId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },

    /**
     * Links running a test under an auto-promote rule, of organizations not erased, by id after `afterId`:
     * the sweep walks them a page at a time.
     */
    async autoPromoting(
      afterId: string,
      limit: number,
    ): Promise<{ id: string; orgId: string; tier: string }[]> {
      return db
        .selectFrom('links')
        .innerJoin('organizations', 'organizations.id', 'links.org_id')
        .select(['links.id as id', 'links.org_id as orgId', 'organizations.tier as tier'])
        .where('links.ab_auto_promote', 'is not', null)
        .where('links.ab', 'is not', null)
        .where('organizations.deleted_at', 'is', null)
        .where('links.id', '>', afterId)
        .orderBy('links.id')
        .limit(limit)
        .execute();
    },
  };
}

export type AbRepo = ReturnType<typeof createAbRepo>;
