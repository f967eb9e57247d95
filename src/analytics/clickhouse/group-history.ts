import type { Store } from '../../store/database.js';
import { groupsOf } from '../model.js';
import {
  type GroupHistoryRow,
  historyOf,
  isNoGroup,
  linksWithHistoryIn,
} from '../write/group-history-repo.js';
import { type GroupDb, lookupGroups } from '../write/group-repo.js';
import { createOrgLinkCache } from '../write/org-link-cache.js';

/**
 * The groups a ClickHouse click row is stamped with, and the links whose stamps differ from their current
 * groups. The stamp of (link, day) is the group set of the link's history segment in force that day
 * (group-history-repo.ts records a move to apply two days after it is made, so a stamp never changes once
 * a click can have it); a link with no history is stamped with its current groups, and a link that is not
 * the organization's with none.
 */

export interface GroupSegment {
  /** The first epoch day (UTC) the segment applies to. */
  from: number;
  groups: string[];
}

export interface MovedLink {
  linkId: string;
  /** Whether the link is in the group now (false too when it is no longer in `links`). */
  member: boolean;
  /** Ascending; the first starts at day 0. */
  segments: GroupSegment[];
}

/** What the cache knows of one link in one organization. */
interface Known {
  groups: string[];
  /** null when the link has no history in the organization: every day is stamped with `groups`. */
  segments: GroupSegment[] | null;
}

const NONE: string[] = [];

/** A link's history rows (of one organization, ascending by day) as segments. */
function segmentsOf(rows: readonly GroupHistoryRow[]): GroupSegment[] {
  const segments: GroupSegment[] = [];
  for (const row of rows) {
    let last = segments[segments.length - 1];
    if (!last || last.from !== row.effective_day) {
      last = { from: row.effective_day, groups: [] };
      segments.push(last);
    }
    if (!isNoGroup(row.grp)) last.groups.push(row.grp);
  }
  return segments;
}

/** The segment in force on `day`: the last whose `from` is not after it (the first for any earlier day). */
function groupsOn(segments: readonly GroupSegment[], day: number): string[] {
  for (let i = segments.length - 1; i > 0; i--) {
    const segment = segments[i] as GroupSegment;
    if (segment.from <= day) return segment.groups;
  }
  return segments[0]?.groups ?? NONE;
}

/** Groups whose moved links are kept between reads (each a few links' history). */
const MOVED_GROUPS = 10_000;

export function createGroupHistory(main: Store, options: { maxLinks?: number } = {}) {
  const movedByGroup = new Map<string, { version: number; links: MovedLink[] }>();
  const cache = createOrgLinkCache<Known>(options.maxLinks ?? 200_000);
  const db: GroupDb = main.db;

  /**
   * What `wanted` (organization -> link ids) holds now: each link's current groups in the organization
   * and its history there. Current groups are read before the history: a move committing in between is
   * then seen in the history, which is what the stamps follow.
   */
  async function load(wanted: Map<string, Set<string>>): Promise<Map<string, Map<string, Known>>> {
    const ids = [...new Set([...wanted.values()].flatMap((links) => [...links]))];
    const folders = new Map(
      (await lookupGroups(db, main.dialect, 'folders', ids)).map((row) => [row.id, row]),
    );
    const tags = new Map<string, string[]>();
    for (const row of await lookupGroups(db, main.dialect, 'tags', ids)) {
      const list = tags.get(row.link_id);
      if (list) list.push(row.tag);
      else tags.set(row.link_id, [row.tag]);
    }
    const history = new Map<string, GroupHistoryRow[]>();
    for (const row of await historyOf(db, ids)) {
      const list = history.get(row.link_id);
      if (list) list.push(row);
      else history.set(row.link_id, [row]);
    }
    const loaded = new Map<string, Map<string, Known>>();
    for (const [orgId, links] of wanted) {
      const known = new Map<string, Known>();
      for (const linkId of links) {
        const link = folders.get(linkId);
        // Sorted tags: a link's stamp does not depend on the order its tag rows come back in.
        const groups =
          link && link.org_id === orgId ? groupsOf(link.folder_id, (tags.get(linkId) ?? []).sort()) : NONE;
        const rows = (history.get(linkId) ?? []).filter((row) => row.org_id === orgId);
        known.set(linkId, { groups, segments: rows.length > 0 ? segmentsOf(rows) : null });
      }
      loaded.set(orgId, known);
    }
    return loaded;
  }

  return {
    /**
     * The groups each (link, day) is stamped with, in the order given. Links are cached per organization
     * until its group version moves on; the arrays returned are shared between clicks (read only).
     */
    async stamps(items: readonly { orgId: string; linkId: string; day: number }[]): Promise<string[][]> {
      if (items.length === 0) return [];
      const orgs = new Map<string, Set<string>>();
      for (const item of items) {
        const links = orgs.get(item.orgId);
        if (links) links.add(item.linkId);
        else orgs.set(item.orgId, new Set([item.linkId]));
      }
      const versions = await lookupGroups(db, main.dialect, 'versions', [...orgs.keys()]);
      const current = new Map(versions.map((row) => [row.org_id, Number(row.version)]));
      const entries = cache.at(current, orgs.keys());
      const missing = new Map<string, Set<string>>();
      for (const [orgId, links] of orgs) {
        const cached = entries.get(orgId);
        const unknown = [...links].filter((linkId) => !cached?.has(linkId));
        if (unknown.length > 0) missing.set(orgId, new Set(unknown));
      }
      if (missing.size > 0) {
        for (const [orgId, known] of await load(missing)) {
          const links = entries.get(orgId);
          if (links) for (const [linkId, link] of known) cache.add(orgId, links, linkId, link);
        }
      }
      return items.map((item) => {
        const known = entries.get(item.orgId)?.get(item.linkId);
        if (!known) return NONE;
        return known.segments ? groupsOn(known.segments, item.day) : known.groups;
      });
    },

    /**
     * The links of `orgId` whose history mentions `grp`, with their whole history and whether they are
     * in `grp` now: the links a read of the group corrects, the others being stamped with what they are in.
     */
    async moved(orgId: string, grp: string): Promise<MovedLink[]> {
      // A view asks this for each of its reads: known at the organization's group version (every move
      // bumps it), one query answers instead of four.
      const [row] = await lookupGroups(db, main.dialect, 'versions', [orgId]);
      const version = Number(row?.version ?? 0);
      const key = `${orgId}\n${grp}`;
      const hit = movedByGroup.get(key);
      if (hit && hit.version === version) return hit.links;
      const links = await movedNow(orgId, grp);
      if (movedByGroup.size >= MOVED_GROUPS) movedByGroup.clear();
      movedByGroup.set(key, { version, links });
      return links;
    },
  };

  async function movedNow(orgId: string, grp: string): Promise<MovedLink[]> {
    const ids = await linksWithHistoryIn(db, orgId, grp);
    if (ids.length === 0) return [];
    const known = (await load(new Map([[orgId, new Set(ids)]]))).get(orgId) ?? new Map<string, Known>();
    return ids.map((linkId) => {
      const link = known.get(linkId);
      return {
        linkId,
        member: link?.groups.includes(grp) ?? false,
        segments: (link?.segments ?? []).map((segment) => ({ ...segment, groups: [...segment.groups] })),
      };
    });
  }
}

export type GroupHistory = ReturnType<typeof createGroupHistory>;
