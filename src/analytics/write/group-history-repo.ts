import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { AnalyticsDatabase } from '../model.js';

/** Any view of the store: the link and folder writes see `Database`, the writer its analytics narrowing. */
export type GroupDb =
  | Kysely<Database>
  | Transaction<Database>
  | Kysely<AnalyticsDatabase>
  | Transaction<AnalyticsDatabase>;

/**
 * The SQL of the links' group history (migration 033), which the ClickHouse group rollups stamp clicks
 * from (src/analytics/clickhouse/group-history.ts). A move is recorded in the link write's transaction,
 * beside the rollup move of group-repo.ts.
 */

/**
 * A move made on day D changes stamps from day D + MOVE_LEAD_DAYS on. Clicks exist only up to today + 1
 * (a writer's clock may run a day ahead of the day it stamps), so no click already stamped, nor any being
 * stamped now by a writer that has not seen the move yet, has a day the move changes.
 */
export const MOVE_LEAD_DAYS = 2;

/** How an empty group set is stored: one row, so a link moved out of every group still has a segment. */
const NO_GROUP = '';

const CHUNK = 500;

/** The tables this file touches, on whichever view of the store it is handed. */
const asStore = (db: GroupDb) => db as Kysely<Database>;

export interface GroupHistoryRow {
  org_id: string;
  link_id: string;
  effective_day: number;
  /** '' for a segment of no group. */
  grp: string;
}

/** The group set a history row stands for ('' is the empty set). */
export const isNoGroup = (grp: string) => grp === NO_GROUP;

async function insertSegment(
  db: GroupDb,
  move: { orgId: string; linkId: string },
  day: number,
  groups: readonly string[],
): Promise<void> {
  const grps = groups.length === 0 ? [NO_GROUP] : [...new Set(groups)];
  await asStore(db)
    .insertInto('link_group_history')
    .values(grps.map((grp) => ({ org_id: move.orgId, link_id: move.linkId, effective_day: day, grp })))
    .execute();
}

/**
 * Records one link's move in the caller's transaction: its first move also writes the set every earlier
 * click was stamped with (from day 0); the new set applies from `day + MOVE_LEAD_DAYS`, replacing what an
 * earlier move of the same day had put there.
 */
export async function recordGroupMove(
  db: GroupDb,
  move: { orgId: string; linkId: string; from: readonly string[]; to: readonly string[]; day: number },
): Promise<void> {
  const any = await asStore(db)
    .selectFrom('link_group_history')
    .select('link_id')
    .where('link_id', '=', move.linkId)
    .limit(1)
    .executeTakeFirst();
  if (!any) await insertSegment(db, move, 0, move.from);
  const effective = move.day + MOVE_LEAD_DAYS;
  await asStore(db)
    .deleteFrom('link_group_history')
    .where('link_id', '=', move.linkId)
    .where('effective_day', '>=', effective)
    .execute();
  await insertSegment(db, move, effective, move.to);
}

/** Every history row of `linkIds`, by link and day ascending. */
export async function historyOf(db: GroupDb, linkIds: readonly string[]): Promise<GroupHistoryRow[]> {
  const rows: GroupHistoryRow[] = [];
  const ids = [...new Set(linkIds)];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const found = await asStore(db)
      .selectFrom('link_group_history')
      .select(['org_id', 'link_id', 'effective_day', 'grp'])
      .where('link_id', 'in', ids.slice(i, i + CHUNK))
      .orderBy('link_id')
      .orderBy('effective_day')
      .orderBy('grp')
      .execute();
    for (const row of found) rows.push({ ...row, effective_day: Number(row.effective_day) });
  }
  return rows;
}

/** The links of `orgId` whose history mentions `grp` (they were in it, are, or will be). */
export async function linksWithHistoryIn(db: GroupDb, orgId: string, grp: string): Promise<string[]> {
  const rows = await asStore(db)
    .selectFrom('link_group_history')
    .select('link_id')
    .distinct()
    .where('org_id', '=', orgId)
    .where('grp', '=', grp)
    .orderBy('link_id')
    .execute();
  return rows.map((row) => row.link_id);
}
