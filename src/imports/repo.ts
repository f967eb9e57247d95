import type { ExpressionBuilder, Insertable, Kysely, Selectable } from 'kysely';
import { lockOrganizationRow, type Store, unitOfWork } from '../store/database.js';
import { orderFairly } from '../store/fair-order.js';
import type { Database } from '../store/schema.js';
import type { ImportError } from './schema.js';

/** The only SQL of the imports domain: the job rows, their errors, and the items already imported. */

type ImportTable = Database['imports'];
export type ImportRow = Selectable<ImportTable>;

/** Imports an organization may have queued or running at once; one more is a 429 too_many_imports. */
export const MAX_ACTIVE_IMPORTS = 3;

/** What one processed page changes on its job, written in one transaction with the claim checked. */
export interface PageProgress {
  cursor: string | null;
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  errors: ImportError[];
  claimedUntil: string;
  now: string;
}

export interface ImportedItem {
  orgId: string;
  source: string;
  sourceKey: string;
  importId: string;
  linkId: string;
  visits: number | null;
  createdAt: string;
}

export function createImportRepo(store: Store) {
  const { db } = store;

  // Runnable: queued, or running under a claim that ran out (its worker died: resume where it stopped).
  const claimable = (now: string) => (eb: ExpressionBuilder<Database, 'imports'>) =>
    eb.and([
      eb('status', 'in', ['queued', 'running']),
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]),
    ]);

  /** Adds a page's outcome and moves the cursor; false when the claim was lost (another worker has it). */
  async function saveProgress(id: string, token: string, page: PageProgress): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('imports')
        .set((eb) => ({
          cursor: page.cursor,
          total: page.total,
          imported: eb('imported', '+', page.imported),
          skipped: eb('skipped', '+', page.skipped),
          failed: eb('failed', '+', page.failed),
          claimed_until: page.claimedUntil,
          updated_at: page.now,
        }))
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      if (page.errors.length > 0) {
        const last = await trx
          .selectFrom('import_errors')
          .select((eb) => eb.fn.max('position').as('position'))
          .where('import_id', '=', id)
          .executeTakeFirst();
        const start = Number(last?.position ?? 0);
        const rows = page.errors.map((error, index) => ({
          import_id: id,
          position: start + index + 1,
          item: error.item,
          reason: error.reason,
        }));
        // Chunked: PostgreSQL takes at most 65,535 bound parameters per statement.
        for (let i = 0; i < rows.length; i += 1000) {
          await trx
            .insertInto('import_errors')
            .values(rows.slice(i, i + 1000))
            .execute();
        }
      }
      return true;
    });
  }

  return {
    /** A start's unit of work, opened by the service: the job row and its audit row. */
    transaction: unitOfWork(db),

    /** Imports of the organization queued or running now. */
    async activeCount(orgId: string): Promise<number> {
      const { count } = await db
        .selectFrom('imports')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('org_id', '=', orgId)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      return Number(count);
    },

    /**
     * The job row, in the caller's transaction; false, with nothing written, when the organization already
     * has MAX_ACTIVE_IMPORTS queued or running. On PostgreSQL the organization's row is locked first, so
     * two requests at once cannot both take the last place (SQLite runs one transaction at a time).
     */
    async insert(trx: Kysely<Database>, row: Insertable<ImportTable>): Promise<boolean> {
      await lockOrganizationRow(store, trx, row.org_id);
      const { count } = await trx
        .selectFrom('imports')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('org_id', '=', row.org_id)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      if (Number(count) >= MAX_ACTIVE_IMPORTS) return false;
      await trx.insertInto('imports').values(row).execute();
      return true;
    },

    async find(orgId: string, id: string): Promise<ImportRow | undefined> {
      return db
        .selectFrom('imports')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async findById(id: string): Promise<ImportRow | undefined> {
      return db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Extends a held claim (before a long wait); false when it is no longer ours. */
    async renewClaim(id: string, token: string, until: string): Promise<boolean> {
      const result = await db
        .updateTable('imports')
        .set({ claimed_until: until })
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Gives a held import back, resuming at its saved cursor: claimable at once, or (a source that asked
     * us to come back later) from `notBefore` on.
     */
    async releaseClaim(id: string, token: string, notBefore: string | null = null): Promise<void> {
      await db
        .updateTable('imports')
        .set({ claim_token: null, claimed_until: notBefore })
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .execute();
    },

    async listRecent(orgId: string, limit: number): Promise<ImportRow[]> {
      return db
        .selectFrom('imports')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    async errors(importId: string, limit: number): Promise<ImportError[]> {
      return db
        .selectFrom('import_errors')
        .select(['item', 'reason'])
        .where('import_id', '=', importId)
        .orderBy('position')
        .limit(limit)
        .execute();
    },

    async errorCount(importId: string): Promise<number> {
      const { count } = await db
        .selectFrom('import_errors')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('import_id', '=', importId)
        .executeTakeFirstOrThrow();
      return Number(count);
    },

    /**
     * Claims a runnable import for `token` (or exactly `id`), round-robin across organizations: the one
     * of the organization whose imports a worker took longest ago (never first), and within it the one
     * taken longest ago, then the oldest. So a one-row import of B waits for one slice of A's big import,
     * not for all of it. The condition is repeated outside the subquery so that two instances racing for
     * the same row cannot both get it: PostgreSQL re-checks it after the first commit, SQLite runs the
     * second UPDATE after the first.
     */
    async claim(token: string, now: string, until: string, id?: string): Promise<ImportRow | undefined> {
      await db
        .updateTable('imports')
        .set((eb) => ({
          claim_token: token,
          claimed_until: until,
          status: 'running',
          updated_at: now,
          served_at: now,
          started_at: eb.fn.coalesce('started_at', eb.val(now)),
        }))
        .where('id', 'in', (eb) => {
          let pick = eb.selectFrom('imports').select('id').where(claimable(now));
          if (id !== undefined) pick = pick.where('id', '=', id);
          return orderFairly(pick, 'imports').limit(1);
        })
        .where(claimable(now))
        .execute();
      return db
        .selectFrom('imports')
        .selectAll()
        .where('claim_token', '=', token)
        .where('status', '=', 'running')
        .executeTakeFirst();
    },

    saveProgress,

    /** Ends the import (done or failed) and erases its parameters: credentials are kept no longer. */
    async finish(
      id: string,
      token: string,
      change: { status: 'done' | 'failed'; total?: number; errors: ImportError[]; now: string },
    ): Promise<boolean> {
      const saved = await saveProgress(id, token, {
        cursor: null,
        total: change.total ?? 0,
        imported: 0,
        skipped: 0,
        failed: 0,
        errors: change.errors,
        claimedUntil: change.now,
        now: change.now,
      });
      if (!saved) return false;
      await db
        .updateTable('imports')
        .set((eb) => ({
          status: change.status,
          params: null,
          claim_token: null,
          claimed_until: null,
          finished_at: change.now,
          // Done: the total is what was counted. Failed: what the source said, or what was counted so far.
          total:
            change.total === undefined
              ? eb(eb('imported', '+', eb.ref('skipped')), '+', eb.ref('failed'))
              : change.total,
        }))
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .execute();
      return true;
    },

    /** The items of `keys` this organization already imported from `source`, with the import that did. */
    async importedKeys(orgId: string, source: string, keys: string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      for (let i = 0; i < keys.length; i += 500) {
        const rows = await db
          .selectFrom('import_items')
          .select(['source_key', 'import_id'])
          .where('org_id', '=', orgId)
          .where('source', '=', source)
          .where('source_key', 'in', keys.slice(i, i + 500))
          .execute();
        for (const row of rows) found.set(row.source_key, row.import_id);
      }
      return found;
    },

    async recordItem(item: ImportedItem): Promise<void> {
      await db
        .insertInto('import_items')
        .values({
          org_id: item.orgId,
          source: item.source,
          source_key: item.sourceKey,
          import_id: item.importId,
          link_id: item.linkId,
          source_visits: item.visits,
          created_at: item.createdAt,
        })
        .execute();
    },
  };
}

export type ImportRepo = ReturnType<typeof createImportRepo>;
