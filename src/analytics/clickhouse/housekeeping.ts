import type { ClickhouseClient } from './client.js';
import { raw, sql } from './literal.js';
import type { Tables } from './schema.js';

/**
 * What deletes rows in ClickHouse: an erased organization's analytics, and raw clicks past
 * CLICK_RETENTION_DAYS. Both are statements 18.16 accepts as they are: `ALTER TABLE ... DELETE WHERE`
 * (a mutation, run by the server in the background: the statement returns once it is queued) and
 * `ALTER TABLE ... DROP PARTITION` (immediate, a month's part files at once).
 */

/** Partition ids of a table partitioned by `toYYYYMM(day)`: 201901 and so on. */
const MONTH_PARTITION = /^(\d{4})(\d{2})$/;

export function createClickhouseHousekeeping(client: ClickhouseClient, t: Tables) {
  /** Every table holding an organization's rows by `org_id` (the ledger holds batch ids only). */
  const orgTables = [
    t.clicks,
    t.linkRollups,
    t.orgRollups,
    t.outcomes,
    t.outcomeRollups,
    t.orgOutcomeRollups,
    t.outcomeWrites,
    t.outcomeCorrections,
    t.groupRollups,
    t.groupOutcomeRollups,
    t.linkDays,
  ];

  /** A mutation not yet finished on `table` that already deletes the organization's rows. */
  async function deletionQueued(table: string, orgId: string): Promise<boolean> {
    const rows = await client.rows<{ n: string }>(
      sql`SELECT count() AS n FROM system.mutations
        WHERE database = ${t.database} AND table = ${table} AND is_done = 0
          AND position(command, ${orgId}) > 0`,
    );
    return Number(rows[0]?.n ?? 0) > 0;
  }

  return {
    /**
     * Queues the deletion of the organization's rows in every table that has some; answers the tables
     * it queued one on. Tables without a row of it are left alone, so the hourly sweep of the last month's
     * erased organizations costs a count per table (the sort key starts with org_id), not a rewrite of
     * every part. A deletion already queued is not queued twice.
     */
    async eraseOrganization(orgId: string): Promise<string[]> {
      const queued: string[] = [];
      for (const table of orgTables) {
        const [row] = await client.rows<{ n: string }>(
          sql`SELECT count() AS n FROM ${table} WHERE org_id = ${orgId}`,
        );
        if (Number(row?.n ?? 0) === 0) continue;
        const name = table.text.slice(t.database.length + 1);
        if (await deletionQueued(name, orgId)) continue;
        await client.command(sql`ALTER TABLE ${table} DELETE WHERE org_id = ${orgId}`);
        queued.push(name);
      }
      return queued;
    },

    /**
     * Raw clicks of every month that ends by `cutoffMs`, dropped a partition at a time; answers the
     * partitions dropped. The rollup views' tables and the outcomes are kept, as the SQL store keeps its
     * rollups: every count and chart stays, only the clicks list and the export lose the old months.
     */
    async dropClicksBefore(cutoffMs: number): Promise<string[]> {
      const parts = await client.rows<{ partition: string }>(
        sql`SELECT DISTINCT partition FROM system.parts
          WHERE database = ${t.database} AND table = 'clicks' AND active`,
      );
      const dropped: string[] = [];
      for (const { partition } of parts) {
        const match = MONTH_PARTITION.exec(partition);
        if (!match) continue;
        const end = Date.UTC(Number(match[1]), Number(match[2]), 1);
        if (end > cutoffMs) continue;
        await client.command(sql`ALTER TABLE ${t.clicks} DROP PARTITION ${raw(String(Number(partition)))}`);
        dropped.push(partition);
      }
      return dropped.sort();
    },
  };
}

export type ClickhouseHousekeeping = ReturnType<typeof createClickhouseHousekeeping>;
