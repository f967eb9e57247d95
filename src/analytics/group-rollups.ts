import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { Increments } from './increments.js';
import type { AnalyticsDatabase } from './rollups.js';
import { WEEK, weekOf } from './rollups.js';

/**
 * Folder and tag rollups (migration 016): `group_rollups` holds, per folder ('f:<id>') and per tag
 * ('t:<tag>'), the organization's dimensions summed over the group's links, so a filtered read is as flat
 * as a whole-organization one. Group rows are derived from the batch's per-link increments, through a
 * cache of link -> groups that an organization's version in `link_group_versions` invalidates.
 *
 * Consistency on PostgreSQL: a batch takes a shared advisory lock per organization bucket before reading
 * which groups its links are in; a link changing folder or tags takes the bucket's exclusive lock before
 * moving its rows. A batch therefore never adds to a group its link has just left, and a move always sees
 * every batch committed before it. SQLite has one writer at a time, which gives the same.
 */

/** Any view of the store: the link and folder writes see `Database`, the writer its analytics narrowing. */
type Db =
  | Kysely<Database>
  | Transaction<Database>
  | Kysely<AnalyticsDatabase>
  | Transaction<AnalyticsDatabase>;
/** The tables this file writes, on whichever view it is handed. */
const asStore = (db: Db) => db as Kysely<Database>;
/** A row of `group_rollups`, in its column order. */
export type GroupRow = [
  org: string,
  grp: string,
  dimension: string,
  day: number,
  value: string,
  count: number,
];

/** Per-link dimensions with no organization-level twin, so no group twin either. */
const LINK_ONLY = new Set(['variant', 'variant_outcome']);
const LOCK_SPACE = 0x6c68;
const LOCK_BUCKETS = 64;

export const folderGroup = (folderId: string) => `f:${folderId}`;
export const tagGroup = (tag: string) => `t:${tag}`;
export const groupsOf = (folderId: string | null, tags: readonly string[]): string[] => [
  ...(folderId ? [folderGroup(folderId)] : []),
  ...tags.map(tagGroup),
];

function bucketOf(orgId: string): number {
  let hash = 0;
  for (let i = 0; i < orgId.length; i++) hash = (Math.imul(hash, 31) + orgId.charCodeAt(i)) | 0;
  return (hash >>> 0) % LOCK_BUCKETS;
}

/**
 * PostgreSQL: the organizations' group locks, in bucket order (no two lockers wait on each other), in one
 * statement: a batch pays one round trip for them.
 */
export async function lockGroups(db: Db, orgIds: Iterable<string>, mode: 'shared' | 'exclusive') {
  const buckets = [...new Set([...orgIds].map(bucketOf))].sort((a, b) => a - b);
  if (buckets.length === 0) return;
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  const calls = buckets.map((bucket) => `${fn}(${LOCK_SPACE}, ${bucket})`).join(', ');
  await sql.raw(`select ${calls}`).execute(asStore(db));
}

const VERSIONS = 'select org_id, version from link_group_versions where org_id in';
const FOLDERS = 'select id, org_id, folder_id from links where id in';
const TAGS = 'select link_id, tag from link_tags where link_id in';
const listOf = (dialect: Dialect, n: number) =>
  dialect === 'postgres'
    ? `(select unnest(string_to_array($${n}, E'\\n')))`
    : '(select value from json_each(?))';
const param = (dialect: Dialect, ids: readonly string[]) =>
  dialect === 'postgres' ? ids.join('\n') : JSON.stringify(ids);

interface Loaded {
  versions: { org_id: string; version: number }[];
  folders: { id: string; org_id: string; folder_id: string | null }[];
  tags: { link_id: string; tag: string }[];
}

/**
 * Which groups each link is in, cached per writer; an organization's entries are dropped when its version
 * moved on. `groupIncrements` is called inside the batch's transaction (after `lockGroups` on PostgreSQL).
 */
export function createGroupCache(maxLinks = 200_000) {
  const byOrg = new Map<string, { version: number; links: Map<string, string[]> }>();
  let size = 0;

  /** Link ids (of `pairs`) whose groups are not known at the organizations' current versions. */
  function unknown(pairs: Map<string, string>, versions: Loaded['versions']): string[] {
    const current = new Map(versions.map((row) => [row.org_id, Number(row.version)]));
    if (size > maxLinks) {
      byOrg.clear();
      size = 0;
    }
    const missing: string[] = [];
    for (const [linkId, orgId] of pairs) {
      const version = current.get(orgId) ?? 0;
      let entry = byOrg.get(orgId);
      if (!entry || entry.version !== version) {
        size -= entry?.links.size ?? 0;
        entry = { version, links: new Map() };
        byOrg.set(orgId, entry);
      }
      if (!entry.links.has(linkId)) missing.push(linkId);
    }
    return missing;
  }

  function remember(loaded: Omit<Loaded, 'versions'>, pairs: Map<string, string>, missing: string[]) {
    const tags = new Map<string, string[]>();
    for (const row of loaded.tags) tags.set(row.link_id, [...(tags.get(row.link_id) ?? []), row.tag]);
    const folders = new Map(loaded.folders.map((row) => [row.id, row]));
    for (const linkId of missing) {
      const orgId = pairs.get(linkId) as string;
      const link = folders.get(linkId);
      // A link of another organization (or none) belongs to no group of this one.
      const groups = link && link.org_id === orgId ? groupsOf(link.folder_id, tags.get(linkId) ?? []) : [];
      byOrg.get(orgId)?.links.set(linkId, groups);
      size += 1;
    }
  }

  /** The group rows a batch's per-link increments add to, folded and in primary-key order. */
  function rows(inc: Increments, pairs: Map<string, string>): GroupRow[] {
    const folded = new Map<string, GroupRow>();
    const add = (org: string, grp: string, dimension: string, day: number, value: string, count: number) => {
      const key = `${org}\n${grp}\n${dimension}\n${day}\n${value}`;
      const row = folded.get(key);
      if (row) row[5] += count;
      else folded.set(key, [org, grp, dimension, day, value, count]);
    };
    for (const row of inc.rows) {
      if (row.link_id === '' || LINK_ONLY.has(row.dimension)) continue;
      const groups = byOrg.get(pairs.get(row.link_id) ?? '')?.links.get(row.link_id) ?? [];
      for (const grp of groups) {
        add(row.org_id, grp, row.dimension, row.day, row.value, row.count);
        add(row.org_id, grp, `${row.dimension}${WEEK}`, weekOf(row.day), row.value, row.count);
        if (row.dimension !== 'total') continue;
        add(row.org_id, grp, 'link', row.day, row.link_id, row.count);
        add(row.org_id, grp, `link${WEEK}`, weekOf(row.day), row.link_id, row.count);
      }
    }
    return [...folded.values()].sort(byGroupKey);
  }

  return {
    /** PostgreSQL (or any async store): the batch's group rows, reading what the cache lacks. */
    async groupRows(db: Db, dialect: Dialect, inc: Increments): Promise<GroupRow[]> {
      const pairs = linkOrgs(inc);
      if (pairs.size === 0) return [];
      const run = async <T>(head: string, ids: string[]) =>
        (
          await asStore(db).executeQuery<T>(
            CompiledQuery.raw(`${head} ${listOf(dialect, 1)}`, [param(dialect, ids)]),
          )
        ).rows;
      const orgs = [...new Set(pairs.values())];
      const missing = unknown(pairs, await run<Loaded['versions'][number]>(VERSIONS, orgs));
      if (missing.length > 0) {
        const folders = await run<Loaded['folders'][number]>(FOLDERS, missing);
        const tags = await run<Loaded['tags'][number]>(TAGS, missing);
        remember({ folders, tags }, pairs, missing);
      }
      return rows(inc, pairs);
    },

    /**
     * SQLite, synchronously inside the writer's transaction, through the writer's statements (each
     * prepared once per connection: preparing costs about what a lookup does).
     */
    groupRowsSync(sqlite: PreparedStatements, inc: Increments): GroupRow[] {
      const pairs = linkOrgs(inc);
      if (pairs.size === 0) return [];
      const all = <T>(head: string, ids: string[]) =>
        sqlite.statement(`${head} ${listOf('sqlite', 1)}`).all([param('sqlite', ids)]) as T[];
      const missing = unknown(pairs, all(VERSIONS, [...new Set(pairs.values())]));
      if (missing.length > 0)
        remember({ folders: all(FOLDERS, missing), tags: all(TAGS, missing) }, pairs, missing);
      return rows(inc, pairs);
    },
  };
}

export type GroupCache = ReturnType<typeof createGroupCache>;

/** The SQLite writer's statement cache (bulk-insert.ts's `SqliteHandle`), as far as lookups need it. */
interface PreparedStatements {
  statement(sql: string): { all(params: unknown[]): unknown[] };
}

/** link id -> organization id of the per-link increments. */
function linkOrgs(inc: Increments): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const row of inc.rows) if (row.link_id !== '') pairs.set(row.link_id, row.org_id);
  return pairs;
}

function byGroupKey(a: GroupRow, b: GroupRow): number {
  for (const i of [0, 1, 2, 3, 4] as const) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/**
 * Moves one link's counts between groups, in the caller's transaction (the link write): its per-link rows
 * are subtracted from each group it left and added to each it joined, rows left at zero are removed, and
 * the organization's version moves on so every writer reloads its links' groups.
 */
export async function moveLinkGroups(
  db: Db,
  move: { orgId: string; linkId: string; from: readonly string[]; to: readonly string[] },
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
  await bumpVersion(db, move.orgId);
}

/** A whole group is gone (its folder deleted, its links moved out in the same transaction). */
export async function dropGroup(db: Db, orgId: string, grp: string): Promise<void> {
  await asStore(db).deleteFrom('group_rollups').where('org_id', '=', orgId).where('grp', '=', grp).execute();
  await bumpVersion(db, orgId);
}

async function bumpVersion(db: Db, orgId: string): Promise<void> {
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

async function shiftLink(db: Db, orgId: string, linkId: string, grp: string, sign: 1 | -1) {
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
