import { sql } from 'kysely';
import type { Store } from '../../store/database.js';

/**
 * The SQL of the erased organizations' sweep (click-retention.ts runs it): which organizations were
 * erased, and one bounded batch of an organization's rows in one analytics table.
 */

/**
 * The analytics tables an organization's rows live in (ORG_TABLES in src/accounts/erase-repo.ts), each
 * with how a batch of one organization's rows is picked through an index: `click_rollups` is keyed by
 * link first, so its rows are found through the organization's links (an erased organization keeps them).
 */
export const ANALYTICS_TABLES = [
  { table: 'click_blocks', key: ['id'], byLinks: false },
  { table: 'tap_outcomes', key: ['tap_id'], byLinks: false },
  { table: 'click_rollups', key: ['link_id', 'day', 'dimension', 'value'], byLinks: true },
  { table: 'org_rollups', key: ['org_id', 'dimension', 'day', 'value'], byLinks: false },
  { table: 'group_rollups', key: ['org_id', 'grp', 'dimension', 'day', 'value'], byLinks: false },
] as const;

export type SweptTable = (typeof ANALYTICS_TABLES)[number];

export function createRetentionRepo(store: Store) {
  return {
    /** The ids of the organizations erased since `sinceIso`. */
    erasedSince: (sinceIso: string) =>
      store.db
        .selectFrom('organizations')
        .select('id')
        .where('deleted_at', 'is not', null)
        .where('deleted_at', '>=', sinceIso)
        .execute(),

    /** Deletes at most `limit` of the organization's rows in `table`; answers how many went. */
    async deleteBatch({ table, key, byLinks }: SweptTable, orgId: string, limit: number): Promise<number> {
      const columns = sql.join(key.map((column) => sql.ref(column)));
      const owned = byLinks
        ? sql`link_id in (select id from links where org_id = ${orgId}) and org_id = ${orgId}`
        : sql`org_id = ${orgId}`;
      // Row values with a bounded subquery: neither dialect has a portable DELETE ... LIMIT.
      const result = await sql`delete from ${sql.table(table)} where (${columns}) in (
      select ${columns} from ${sql.table(table)} where ${owned} limit ${limit})`.execute(store.db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
