import type { Kysely } from 'kysely';
import type { Store } from '../../store/database.js';
import type { AnalyticsDatabase, Scope } from '../model.js';
import { createRollupRepo } from '../read/rollup-repo.js';

/**
 * What the ClickHouse store asks the main database (PostgreSQL or SQLite): a scope's link ids (a folder
 * and a tag together, and the raw reads of any folder or tag), link slugs, a link's organization, whether
 * a folder still exists. One folder or one tag alone reads its group rollups instead (reads.ts), corrected
 * for its moved links through the group history (group-history.ts).
 */
export function createScopeRepo(main: Store) {
  const db = main.db as unknown as Kysely<AnalyticsDatabase>;
  const rollups = createRollupRepo(db);
  return {
    /** The ids of the scope's links (one link: itself, unchecked, as the SQL store reads it). */
    async linkIds(scope: Scope): Promise<string[]> {
      if (scope.linkId && !scope.folderId && !scope.tag) return [scope.linkId];
      return rollups.scopeLinkIds(scope);
    },

    /** id -> slug of those of `ids` that are the organization's links (500 per query, as the SQL store). */
    async slugs(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      for (let i = 0; i < ids.length; i += 500) {
        for (const row of await rollups.slugsOf(orgId, ids.slice(i, i + 500))) found.set(row.id, row.slug);
      }
      return found;
    },

    /**
     * Whether the organization still has the folder. A deleted folder's group rows stay in ClickHouse
     * (its links leave it without a move: folders/repo.ts empties it), so a read of it must know it is gone.
     */
    async folderExists(orgId: string, folderId: string): Promise<boolean> {
      const row = await db
        .selectFrom('folders')
        .select('id')
        .where('id', '=', folderId)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The organization of a link (the clicks table is keyed by organization first), or null. */
    async orgOfLink(linkId: string): Promise<string | null> {
      const row = await db.selectFrom('links').select('org_id').where('id', '=', linkId).executeTakeFirst();
      return row?.org_id ?? null;
    },
  };
}

export type ScopeRepo = ReturnType<typeof createScopeRepo>;
