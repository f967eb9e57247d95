import type { Kysely, Transaction } from 'kysely';
import type { Store } from '../../store/database.js';
import type { Database } from '../../store/schema.js';
import { blockValues, packBlocks } from '../click-blocks.js';
import type { AnalyticsDatabase, OutcomeRow } from '../model.js';
import {
  BLOCKS_TABLE,
  insertMany,
  markBatch,
  sqliteHandle,
  writeClickBatchSqlite,
  writeIncrements,
} from './batch-repo.js';
import type { ClickInput } from './click-input.js';
import { createClickPartitions } from './click-partitions.js';
import { lockGroups } from './group-repo.js';
import { createGroupCache } from './group-rollups.js';
import { Increments } from './increments.js';
import { addClicks, addOutcome, cut, toRow } from './rollups.js';

/**
 * The analytics writes. Each keeps the rollups in step with the raw rows in the same transaction: a batch
 * of clicks (blocks per link, every rollup increment, its batch id), a tap's first outcome.
 */

export function createWriteRepo(store: Store) {
  const db = store.db as unknown as Kysely<AnalyticsDatabase>;
  const sqlite = store.sqlite ? sqliteHandle(store.sqlite) : undefined;
  // Which folder and tags each link is in, for the group rollups (one cache per writer).
  const groups = createGroupCache();
  const partitions = createClickPartitions(store);
  return {
    /**
     * One transaction: the batch's raw clicks (blocks per link) and every rollup increment. With a
     * `batchId` the batch is written at most once: false when that id was written before.
     */
    async writeClicks(clicks: readonly ClickInput[], batchId?: string): Promise<boolean> {
      const rows = clicks.map(toRow);
      const inc = new Increments();
      addClicks(inc, rows);
      const blocks = packBlocks(rows).map(blockValues);
      const raw = store.sqlite;
      if (raw && sqlite) {
        // Another query's transaction is open on the connection (an API write between two statements):
        // the batch waits for it to end rather than run inside it.
        while (raw.inTransaction) await new Promise((resolve) => setImmediate(resolve));
        return writeClickBatchSqlite(raw, sqlite, blocks, inc, batchId, groups);
      }
      // A month the writer has not seen gets its partition first (else its blocks land in DEFAULT).
      await partitions.ensureFor([rows[0]?.at ?? Date.now(), rows.at(-1)?.at ?? Date.now()]);
      return db.transaction().execute(async (trx) => {
        // First, before any row lock: a link moving between groups waits for the batch, or the reverse.
        await lockGroups(trx, new Set(rows.map((row) => row.org_id)), 'shared');
        if (batchId !== undefined && !(await markBatch(trx, batchId))) return false;
        await insertMany(trx, store.dialect, BLOCKS_TABLE, blocks);
        await writeIncrements(trx, store.dialect, inc, groups);
        return true;
      });
    },

    /** Forgets batch ids written before `beforeMs`: a replay is expected within days, not weeks. */
    async pruneBatchIds(beforeMs: number): Promise<void> {
      await db.deleteFrom('click_batches').where('at', '<', beforeMs).execute();
    },

    /** The tap's first outcome with its rollups, and `within` in the same transaction; false for a repeat. */
    async insertOutcome(
      o: OutcomeRow,
      within?: (trx: Transaction<Database>) => Promise<unknown>,
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        if (store.dialect === 'postgres') await lockGroups(trx, [o.orgId], 'shared');
        const inserted = await trx
          .insertInto('tap_outcomes')
          .values({
            tap_id: o.tapId,
            org_id: o.orgId,
            link_id: o.linkId,
            day: o.day,
            outcome: o.outcome,
            variant: o.variant,
            platform_key: cut(o.platformKey, 32),
            at: o.at,
          })
          .onConflict((oc) => oc.column('tap_id').doNothing())
          .returning('tap_id')
          .executeTakeFirst();
        if (!inserted) return false;
        const inc = new Increments();
        addOutcome(inc, o);
        await writeIncrements(trx, store.dialect, inc, groups);
        // The rest of the store sees the full schema; this repo's typed view is a narrowing of it.
        await within?.(trx as unknown as Transaction<Database>);
        return true;
      });
    },
  };
}

export type WriteRepo = ReturnType<typeof createWriteRepo>;
