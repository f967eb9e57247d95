import type { Dialect } from '../../store/database.js';
import { groupsOf, WEEK, weekOf } from '../model.js';
import {
  type GroupDb,
  type GroupLookupRows,
  lookupGroups,
  lookupGroupsSync,
  type PreparedStatements,
} from './group-repo.js';
import type { Increments } from './increments.js';
import { createOrgLinkCache } from './org-link-cache.js';

/**
 * Folder and tag rollups (migration 016): `group_rollups` holds, per folder ('f:<id>') and per tag
 * ('t:<tag>'), the organization's dimensions summed over the group's links, so a filtered read is as flat
 * as a whole-organization one. Group rows are derived from the batch's per-link increments, through a
 * cache of link -> groups that an organization's version in `link_group_versions` invalidates. The SQL
 * (the organization locks that order a batch and a link's move, the cache's lookups, the move itself) is
 * in group-repo.ts.
 */

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

interface Loaded {
  versions: GroupLookupRows['versions'][];
  folders: GroupLookupRows['folders'][];
  tags: GroupLookupRows['tags'][];
}

/**
 * Which groups each link is in, cached per writer; an organization's entries are dropped when its version
 * moved on. `groupIncrements` is called inside the batch's transaction (after `lockGroups` on PostgreSQL).
 */
export function createGroupCache(maxLinks = 200_000) {
  const cache = createOrgLinkCache<string[]>(maxLinks);
  type Known = Map<string, Map<string, string[]>>;

  /** The organizations' links at their current versions, and the link ids (of `pairs`) not known there. */
  function unknown(pairs: Map<string, string>, versions: Loaded['versions']) {
    const current = new Map(versions.map((row) => [row.org_id, Number(row.version)]));
    const known: Known = cache.at(current, new Set(pairs.values()));
    const missing = [...pairs].filter(([linkId, orgId]) => !known.get(orgId)?.has(linkId)).map(([id]) => id);
    return { known, missing };
  }

  function remember(
    loaded: Omit<Loaded, 'versions'>,
    pairs: Map<string, string>,
    missing: string[],
    known: Known,
  ) {
    const tags = new Map<string, string[]>();
    for (const row of loaded.tags) tags.set(row.link_id, [...(tags.get(row.link_id) ?? []), row.tag]);
    const folders = new Map(loaded.folders.map((row) => [row.id, row]));
    for (const linkId of missing) {
      const orgId = pairs.get(linkId) as string;
      const link = folders.get(linkId);
      // A link of another organization (or none) belongs to no group of this one.
      const groups = link && link.org_id === orgId ? groupsOf(link.folder_id, tags.get(linkId) ?? []) : [];
      const links = known.get(orgId);
      if (links) cache.add(orgId, links, linkId, groups);
    }
  }

  /** The group rows a batch's per-link increments add to, folded and in primary-key order. */
  function rows(inc: Increments, pairs: Map<string, string>, known: Known): GroupRow[] {
    const folded = new Map<string, GroupRow>();
    const add = (org: string, grp: string, dimension: string, day: number, value: string, count: number) => {
      const key = `${org}\n${grp}\n${dimension}\n${day}\n${value}`;
      const row = folded.get(key);
      if (row) row[5] += count;
      else folded.set(key, [org, grp, dimension, day, value, count]);
    };
    for (const row of inc.rows) {
      if (row.link_id === '' || LINK_ONLY.has(row.dimension)) continue;
      const groups = known.get(pairs.get(row.link_id) ?? '')?.get(row.link_id) ?? [];
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
    async groupRows(db: GroupDb, dialect: Dialect, inc: Increments): Promise<GroupRow[]> {
      const pairs = linkOrgs(inc);
      if (pairs.size === 0) return [];
      const orgs = [...new Set(pairs.values())];
      const { known, missing } = unknown(pairs, await lookupGroups(db, dialect, 'versions', orgs));
      if (missing.length > 0) {
        const folders = await lookupGroups(db, dialect, 'folders', missing);
        const tags = await lookupGroups(db, dialect, 'tags', missing);
        remember({ folders, tags }, pairs, missing, known);
      }
      return rows(inc, pairs, known);
    },

    /**
     * SQLite, synchronously inside the writer's transaction, through the writer's statements (each
     * prepared once per connection: preparing costs about what a lookup does).
     */
    groupRowsSync(sqlite: PreparedStatements, inc: Increments): GroupRow[] {
      const pairs = linkOrgs(inc);
      if (pairs.size === 0) return [];
      const { known, missing } = unknown(
        pairs,
        lookupGroupsSync(sqlite, 'versions', [...new Set(pairs.values())]),
      );
      if (missing.length > 0)
        remember(
          {
            folders: lookupGroupsSync(sqlite, 'folders', missing),
            tags: lookupGroupsSync(sqlite, 'tags', missing),
          },
          pairs,
          missing,
          known,
        );
      return rows(inc, pairs, known);
    },
  };
}

export type GroupCache = ReturnType<typeof createGroupCache>;

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
