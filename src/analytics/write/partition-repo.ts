import { type Kysely, sql } from 'kysely';
import type { Store } from '../../store/database.js';
import type { Database } from '../../store/schema.js';

/**
 * The SQL of the raw clicks' growth (click-partitions.ts decides when each runs): PostgreSQL's month
 * partitions of `click_blocks` (migration 017) and DEFAULT's old rows; SQLite's old blocks by id.
 */

export function createPartitionRepo(store: Store) {
  const db = store.db as Kysely<Database>;
  return {
    /** Creates a month's partition unless it exists (`name`, `from` and `to` are the code's own, never input). */
    async createPartition(month: { name: string; from: number; to: number }): Promise<void> {
      await sql
        .raw(
          `create table if not exists ${month.name} partition of click_blocks for values from (${month.from}) to (${month.to})`,
        )
        .execute(db);
    },

    /** Whether a table of that name exists. */
    async exists(name: string): Promise<boolean> {
      const exists = await sql`select to_regclass(${name}) as name`.execute(db);
      return Boolean((exists.rows[0] as { name: unknown } | undefined)?.name);
    },

    /** The names of `click_blocks`' partitions in the store's schema. */
    async partitionNames(): Promise<string[]> {
      const result = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'click_blocks'::regclass`.execute(db);
      return result.rows.map((row) => row.name);
    },

    async dropPartition(name: string): Promise<void> {
      await sql.raw(`drop table if exists ${name}`).execute(db);
    },

    /** DEFAULT's blocks that end before `cutoffMs`; answers how many went. */
    async deleteDefaultBefore(cutoffMs: number): Promise<number> {
      const deleted = await sql`delete from click_blocks_default where last_at < ${cutoffMs}`.execute(db);
      return Number(deleted.numAffectedRows ?? 0);
    },

    /** SQLite: the ids and ends of the next `limit` blocks after id `after`, in id order. */
    blocksAfter: (after: number, limit: number) =>
      db
        .selectFrom('click_blocks')
        .select(['id', 'last_at'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute(),

    /** Deletes blocks by id; answers how many went. */
    async deleteBlocks(ids: number[]): Promise<number> {
      const result = await db.deleteFrom('click_blocks').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type PartitionRepo = ReturnType<typeof createPartitionRepo>;
