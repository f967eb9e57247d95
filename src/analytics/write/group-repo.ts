import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Dialect } from '../../store/database.js';
import type { Database } from '../../store/schema.js';
import { WEEK } from '../model.js';
import { type GroupDb, recordGroupMove } from './group-history-repo.js';

/**
 * The SQL of the folder and tag rollups (migration 016; group-rollups.ts says how they are kept): the
 * organization locks that order a batch and a link's move, the group cache's lookups, and the move of one
 * link's counts between groups, which the link and folder writes call inside their own transactions.
 *
 * Consistency on PostgreSQL: a batch takes a shared advisory lock per organization bucket before reading
 * which groups its links are in; a link changing folder or tags takes the bucket's exclusive lock before
 * moving its rows. A batch therefore never adds to a group its link has just left, and a move always sees
 * every batch committed before it. SQLite has one writer at a time, which gives the same.
 */

/** The group keys, for the link and folder writes that move or drop a group's rows. */
export { folderGroup, groupsOf } from '../model.js';

/** Any view of the store (defined beside the history's SQL, which this file calls). */
export type { GroupDb };

/** The tables this file writes, on whichever view it is handed. */
const asStore = (db: GroupDb) => db as Kysely<Database>;

const LOCK_SPACE = 0x6c68;
const LOCK_BUCKETS = 64;

function bucketOf(orgId: string): number {
  let hash = 0;
  for (let i = 0; i < orgId.length; i++) hash = (Math.imul(hash, 31) + orgId.charCodeAt(i)) | 0;
  return (hash >>> 0) % LOCK_BUCKETS;
}

/**
 * PostgreSQL: the organizations' group locks, in bucket order (no two lockers wait on each other), in one
 * statement: a batch pays one round trip for them.
 */
export async function lockGroups(db: GroupDb, orgIds: Iterable<string>, mode: 'shared' | 'exclusive') {
  const buckets = [...new Set([...orgIds].map(bucketOf))].sort((a, b) => a - b);
  if (buckets.length === 0) return;
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  const calls = buckets.map((bucket) => `${fn}(${LOCK_SPACE}, ${bucket})`).join(', ');
  await sql.raw(`select ${calls}`).execute(asStore(db));
}

/** The group cache's three lookups: organizations' versions, links' folders, links' tags. */
const LOOKUPS = {
  versions: 'select org_id, version from link_group_versions where org_id in',
  folders: 'select id, org_id, folder_id from links where id in',
  tags: 'select link_id, tag from link_tags where link_id in',
} as const;

export interface GroupLookupRows {
  versions: { org_id: string; version: number };
  folders: { id: string; org_id: string; folder_id: string | null };
  tags: { link_id: string; tag: string };
}
export type GroupLookup = keyof GroupLookupRows;

const listOf = (dialect: Dialect, n: number) =>
  dialect === 'postgres'
    ? `(select unnest(string_to_array($${n}, E'\\n')))`
    : '(select value from json_each(?))';
const param = (dialect: Dialect, ids: readonly string[]) =>
  dialect === 'postgres' ? ids.join('\n') : JSON.stringify(ids);

/** One lookup of the group cache over `ids` (organization ids for versions, link ids else). */
export async function lookupGroups<K extends GroupLookup>(
  db: GroupDb,
  dialect: Dialect,
  what: K,
  ids: string[],
): Promise<GroupLookupRows[K][]> {
  return (
    await asStore(db).executeQuery<GroupLookupRows[K]>(
      CompiledQuery.raw(`${LOOKUPS[what]} ${listOf(dialect, 1)}`, [param(dialect, ids)]),
    )
  ).rows;
}

/** The SQLite writer's statement cache (batch-repo.ts's `SqliteHandle`), as far as lookups need it. */
export interface PreparedStatements {
  statement(sql: string): { all(params: unknown[]): unknown[] };
}

/**
 * The same lookup on SQLite, synchronously inside the writer's transaction, through the writer's
 * statements (each prepared once per connection: preparing costs about what a lookup does).
 */
export function lookupGroupsSync<K extends GroupLookup>(
  sqlite: PreparedStatements,
  what: K,
  ids: string[],
): GroupLookupRows[K][] {
  return sqlite
    .statement(`${LOOKUPS[what]} ${listOf('sqlite', 1)}`)
    .all([param('sqlite', ids)]) as GroupLookupRows[K][];
}

/**
 * Moves one link's counts between groups, in the caller's transaction (the link write): its per-link rows
 * are subtracted from each group it left and added to each it joined, rows left at zero are removed, the
 * move is recorded in the link's group history (`day`: the UTC epoch day it is made, for the ClickHouse
 * stamps), and the organization's version moves on so every writer reloads its links' groups.
 */
export async function moveLinkGroups(
  db: GroupDb,
  move: { orgId: string; linkId: string; from: readonly string[]; to: readonly string[]; day: number },
): Promise<void> {
  const left = move.from.filter((grp) => !move.to.includes(grp));
  const joined = move.to.filter((grp) => !move.from.includes(grp));
  if (left.length === 0 && joined.length === 0) return;
  for (const grp of left) await shiftLink(db, move.orgId, move.linkId, grp, -1);
  for (const grp of joined) await shiftLink(db, move.orgId, move.linkId, grp, 1);
  if (left.length > 0) {
    await asStore(db)
      .deleteFrom('group_rollups')
      .where('org_id', '=', move.orgId)
      .where('grp', 'in', left)
      .where('count', '=', 0)
      .execute();
  }
  await recordGroupMove(db, move);
  await bumpVersion(db, move.orgId);
}

/** A whole group is gone (its folder deleted, its links moved out in the same transaction). */
export async function dropGroup(db: GroupDb, orgId: string, grp: string): Promise<void> {
  await asStore(db).deleteFrom('group_rollups').where('org_id', '=', orgId).where('grp', '=', grp).execute();
  await bumpVersion(db, orgId);
}

async function bumpVersion(db: GroupDb, orgId: string): Promise<void> {
  await asStore(db)
    .insertInto('link_group_versions')
    .values({ org_id: orgId, version: 1 })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ version: sql`link_group_versions.version + 1` }))
    .execute();
}

/** The four shapes of a group row drawn from per-link rows: day, 7-day block, and the `link` pair. */
const SHAPES = [
  { columns: `dimension, day, value`, where: `dimension not in ('variant', 'variant_outcome')` },
  {
    columns: `dimension || '${WEEK}', day - day % 7, value`,
    where: `dimension not in ('variant', 'variant_outcome')`,
  },
  { columns: `'link', day, link_id`, where: `dimension = 'total'` },
  { columns: `'link${WEEK}', day - day % 7, link_id`, where: `dimension = 'total'` },
];

async function shiftLink(db: GroupDb, orgId: string, linkId: string, grp: string, sign: 1 | -1) {
  for (const shape of SHAPES) {
    const sum = sign === 1 ? 'sum(count)' : '-sum(count)';
    const query = sql`insert into group_rollups (org_id, grp, dimension, day, value, count)
      select org_id, ${grp}, ${sql.raw(shape.columns)}, ${sql.raw(sum)} from click_rollups
      where link_id = ${linkId} and org_id = ${orgId} and ${sql.raw(shape.where)}
      group by 1, 2, 3, 4, 5
      on conflict (org_id, grp, dimension, day, value)
      do update set count = group_rollups.count + excluded.count`;
    await query.execute(asStore(db));
  }
}
