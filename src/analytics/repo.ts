import type { Kysely, Transaction } from 'kysely';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import {
  BLOCKS_TABLE,
  insertMany,
  markBatch,
  sqliteHandle,
  writeClickBatchSqlite,
  writeIncrements,
} from './bulk-insert.js';
import { blockValues, packBlocks } from './click-blocks.js';
import type { ClickInput } from './click-input.js';
import { createClickPartitions } from './click-partitions.js';
import { createClickReads } from './click-reads.js';
import { createGroupCache, lockGroups } from './group-rollups.js';
import { Increments } from './increments.js';
import { createRollupReads, type DayRange } from './rollup-reads.js';
import {
  type AnalyticsDatabase,
  addClicks,
  addOutcome,
  cut,
  type OutcomeRow,
  type Scope,
  toRow,
} from './rollups.js';

export type { DayRange } from './rollup-reads.js';
export {
  DAY_MS,
  type ExportRow,
  OUTCOMES,
  type Outcome,
  type OutcomeRow,
  type Scope,
  SEP,
} from './rollups.js';

/**
 * Analytics store queries. Writes keep the rollups in step with the raw rows in the same transaction;
 * reads answer from the rollups (rollup-reads.ts); only the clicks list and the export read raw clicks
 * (click-reads.ts).
 */

export function createAnalyticsRepo(store: Store) {
  const db = store.db as unknown as Kysely<AnalyticsDatabase>;

  const reads = createRollupReads(db);
  const sqlite = store.sqlite ? sqliteHandle(store.sqlite) : undefined;
  // Which folder and tags each link is in, for the group rollups (one cache per writer).
  const groups = createGroupCache();
  const partitions = createClickPartitions(store);
  return {
    ...reads,

    ...createClickReads(db, reads.linkIds),

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

    /** The scope's links by clicks, most first (slug breaks ties), at most `limit`. */
    async perLink(scope: Scope, window: DayRange, limit: number) {
      const ranked = (await reads.linkTotals(scope, window)).sort((a, b) => b.clicks - a.clicks);
      // Slugs only for the links that can make the list: the top `limit` and whoever ties the last of them.
      const floor = ranked[limit - 1]?.clicks ?? 0;
      const candidates = ranked.filter((row, i) => i < limit || row.clicks === floor);
      const slugs = new Map<string, string>();
      for (let i = 0; i < candidates.length; i += 500) {
        const ids = candidates.slice(i, i + 500).map((row) => row.id);
        const rows = await db
          .selectFrom('links')
          .select(['id', 'slug'])
          .where('org_id', '=', scope.orgId)
          .where('id', 'in', ids)
          .execute();
        for (const row of rows) slugs.set(row.id, row.slug);
      }
      return candidates
        .flatMap((row) => {
          const slug = slugs.get(row.id);
          return slug === undefined ? [] : [{ slug, clicks: row.clicks }];
        })
        .sort((a, b) => b.clicks - a.clicks || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
        .slice(0, limit);
    },
  };
}

export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;

/**
 * The narrow interface the rest of the service sees (docs/architecture.md): scopes, windows and plain
 * rows in and out, nothing of SQL. Another engine (ClickHouse) would implement exactly these.
 */
export type AnalyticsStore = Pick<
  AnalyticsRepo,
  | 'writeClicks'
  | 'insertOutcome'
  | 'pruneBatchIds'
  | 'sums'
  | 'daily'
  | 'linkTotals'
  | 'perLink'
  | 'linkSums'
  | 'clicks'
  | 'exportPages'
>;
