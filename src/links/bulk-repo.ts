import type { ExpressionBuilder, Insertable, Selectable } from 'kysely';
import { lockOrganizationRow, type Store } from '../store/database.js';
import { orderFairly } from '../store/fair-order.js';
import type { Database } from '../store/schema.js';
import type { BulkOutcome } from './bulk-schema.js';

/** The only SQL of bulk actions: the job rows, their frozen selections, and the titles an export shows. */

type BulkActionTable = Database['bulk_actions'];
export type BulkActionRow = Selectable<BulkActionTable>;

/** Bulk actions an organization may have queued or running at once; one more is a 429. */
export const MAX_ACTIVE_BULK_ACTIONS = 3;
/** Failed items a job's answer lists. */
export const LISTED_FAILURES = 500;
/** Rows per INSERT: PostgreSQL takes at most 65,535 bound parameters per statement. */
const INSERT_CHUNK = 1000;

export interface ItemOutcome {
  position: number;
  outcome: BulkOutcome;
  error: string | null;
  message: string | null;
}

export function createBulkActionRepo(store: Store) {
  const { db } = store;

  // Runnable: queued, or running under a claim that ran out (its worker died: resume where it stopped).
  const claimable = (now: string) => (eb: ExpressionBuilder<Database, 'bulk_actions'>) =>
    eb.and([
      eb('status', 'in', ['queued', 'running']),
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]),
    ]);

  return {
    /**
     * The job row and its frozen selection, in one transaction; false, with nothing written, when the
     * organization already has MAX_ACTIVE_BULK_ACTIONS queued or running (its row locked on PostgreSQL
     * first, so two requests at once cannot both take the last place).
     */
    async insert(row: Insertable<BulkActionTable>, linkIds: readonly string[]): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await lockOrganizationRow(store, trx, row.org_id);
        const { count } = await trx
          .selectFrom('bulk_actions')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('org_id', '=', row.org_id)
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirstOrThrow();
        if (Number(count) >= MAX_ACTIVE_BULK_ACTIONS) return false;
        await trx.insertInto('bulk_actions').values(row).execute();
        for (let i = 0; i < linkIds.length; i += INSERT_CHUNK) {
          const items = linkIds.slice(i, i + INSERT_CHUNK).map((linkId, index) => ({
            bulk_action_id: row.id,
            position: i + index + 1,
            link_id: linkId,
            outcome: null,
            error: null,
            message: null,
          }));
          await trx.insertInto('bulk_action_items').values(items).execute();
        }
        return true;
      });
    },

    async find(orgId: string, id: string): Promise<BulkActionRow | undefined> {
      return db
        .selectFrom('bulk_actions')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** A job's failed items, in position order (the first LISTED_FAILURES). */
    async failures(id: string) {
      return db
        .selectFrom('bulk_action_items')
        .select(['link_id', 'error', 'message'])
        .where('bulk_action_id', '=', id)
        .where('outcome', '=', 'failed')
        .orderBy('position')
        .limit(LISTED_FAILURES)
        .execute();
    },

    /**
     * Claims a runnable job for `token`, round-robin across organizations as imports are (imports/repo.ts):
     * the job of the organization served longest ago, then the job served longest ago, then the oldest.
     * The condition is repeated outside the subquery so that two instances racing cannot both get a row.
     */
    async claim(token: string, now: string, until: string): Promise<BulkActionRow | undefined> {
      await db
        .updateTable('bulk_actions')
        .set({ claim_token: token, claimed_until: until, status: 'running', updated_at: now, served_at: now })
        .where('id', 'in', (eb) =>
          orderFairly(eb.selectFrom('bulk_actions').select('id').where(claimable(now)), 'bulk_actions').limit(
            1,
          ),
        )
        .where(claimable(now))
        .execute();
      return db
        .selectFrom('bulk_actions')
        .selectAll()
        .where('claim_token', '=', token)
        .where('status', '=', 'running')
        .executeTakeFirst();
    },

    /** The next `count` items not handled yet, in position order. */
    async pendingItems(id: string, count: number) {
      return db
        .selectFrom('bulk_action_items')
        .select(['position', 'link_id'])
        .where('bulk_action_id', '=', id)
        .where('outcome', 'is', null)
        .orderBy('position')
        .limit(count)
        .execute();
    },

    /**
     * Records one item's outcome and counts it on the job, under the claim; false when the claim was lost
     * (another worker has the job). An item already recorded is not counted twice.
     */
    async saveItem(
      id: string,
      token: string,
      item: ItemOutcome,
      until: string,
      now: string,
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const job = await trx
          .updateTable('bulk_actions')
          .set((eb) => ({
            processed: eb('processed', '+', 1),
            changed: eb('changed', '+', item.outcome === 'changed' ? 1 : 0),
            failed: eb('failed', '+', item.outcome === 'failed' ? 1 : 0),
            claimed_until: until,
            updated_at: now,
          }))
          .where('id', '=', id)
          .where('claim_token', '=', token)
          .where('status', '=', 'running')
          .executeTakeFirst();
        if (Number(job.numUpdatedRows) === 0) return false;
        const saved = await trx
          .updateTable('bulk_action_items')
          .set({ outcome: item.outcome, error: item.error, message: item.message })
          .where('bulk_action_id', '=', id)
          .where('position', '=', item.position)
          .where('outcome', 'is', null)
          .executeTakeFirst();
        if (Number(saved.numUpdatedRows) === 0) throw new Error('bulk action item recorded twice');
        return true;
      });
    },

    /** Gives a held job back (its slice is over, or the worker stops): any worker may resume it now. */
    async releaseClaim(id: string, token: string): Promise<void> {
      await db
        .updateTable('bulk_actions')
        .set({ claim_token: null, claimed_until: null })
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .execute();
    },

    async finish(id: string, token: string, status: 'done' | 'failed', now: string): Promise<void> {
      await db
        .updateTable('bulk_actions')
        .set({ status, claim_token: null, claimed_until: null, finished_at: now, updated_at: now })
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .execute();
    },

    /** The title each link's preview shows (its custom card's, else the scraped one's), by link id. */
    async titles(linkIds: readonly string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      if (linkIds.length === 0) return found;
      const rows = await db
        .selectFrom('link_previews')
        .select(['link_id', 'source', 'scraped', 'custom'])
        .where('link_id', 'in', linkIds)
        .execute();
      for (const row of rows) {
        const title = titleOf(row.source === 'custom' ? row.custom : row.scraped);
        if (title) found.set(row.link_id, title);
      }
      return found;
    },
  };
}

function titleOf(json: string | null): string | null {
  if (!json) return null;
  try {
    const fields = JSON.parse(json) as { title?: unknown };
    return typeof fields.title === 'string' ? fields.title : null;
  } catch {
    return null;
  }
}

export type BulkActionRepo = ReturnType<typeof createBulkActionRepo>;
