/**
 * What a writer knows of links, per organization, while the organization's group version
 * (`link_group_versions`, bumped by every move) stays the same: the SQL writer's link -> groups
 * (group-rollups.ts) and the ClickHouse stamper's groups and history (clickhouse/group-history.ts).
 * Everything is forgotten once more than `maxLinks` links are held.
 */
export function createOrgLinkCache<V>(maxLinks: number) {
  const byOrg = new Map<string, { version: number; links: Map<string, V> }>();
  let size = 0;
  return {
    /**
     * Each organization's links at its current version (`versions`, 0 when it has none): the map held,
     * or a fresh one in place of a map of an older version. A caller keeps the maps it was given for the
     * rest of its work: a concurrent caller that sees a newer version replaces the organization's map,
     * and what this one loads then lands in its own map only.
     */
    at(versions: ReadonlyMap<string, number>, orgIds: Iterable<string>): Map<string, Map<string, V>> {
      if (size > maxLinks) {
        byOrg.clear();
        size = 0;
      }
      const maps = new Map<string, Map<string, V>>();
      for (const orgId of orgIds) {
        const version = versions.get(orgId) ?? 0;
        let entry = byOrg.get(orgId);
        if (!entry || entry.version !== version) {
          size -= entry?.links.size ?? 0;
          entry = { version, links: new Map() };
          byOrg.set(orgId, entry);
        }
        maps.set(orgId, entry.links);
      }
      return maps;
    },

    /** Adds what was loaded of a link to a map `at` gave (counted while it is the organization's). */
    add(orgId: string, links: Map<string, V>, linkId: string, value: V): void {
      if (!links.has(linkId) && byOrg.get(orgId)?.links === links) size += 1;
      links.set(linkId, value);
    },
  };
}
