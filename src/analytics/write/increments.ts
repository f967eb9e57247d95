/**
 * A batch's rollup increments, one per rollup row (link or organization, day, dimension, value), so each
 * row is upserted once per batch (PostgreSQL requires it). What a click adds is decided in rollups.ts.
 */

export interface Increment {
  org_id: string;
  link_id: string;
  day: number;
  dimension: string;
  value: string;
  count: number;
}

/**
 * One (organization, link, day) of a batch: its rows by dimension and value. A click counts in three
 * (its link's day, the organization's day and 7-day block), so it looks the three up once and adds each
 * dimension to them (`CountScopes` in rollups.ts), instead of walking the whole tree for each of its
 * twenty-odd increments.
 */
export class RollupScope {
  /** Its rows by dimension, then value (read in key order by `Increments.inKeyOrder`). */
  readonly byDimension = new Map<string, Map<string, Increment>>();

  constructor(
    private readonly rows: Increment[],
    readonly orgId: string,
    readonly linkId: string,
    readonly day: number,
  ) {}

  add(dimension: string, value: string, count = 1): void {
    let byValue = this.byDimension.get(dimension);
    if (byValue === undefined) {
      byValue = new Map();
      this.byDimension.set(dimension, byValue);
    }
    const row = byValue.get(value);
    if (row) row.count += count;
    else {
      const fresh = { org_id: this.orgId, link_id: this.linkId, day: this.day, dimension, value, count };
      byValue.set(value, fresh);
      this.rows.push(fresh);
    }
  }
}

/**
 * Increments, one per rollup row, so each row is upserted once per batch (PostgreSQL requires it). Nested
 * maps rather than one composite string key: the ids repeat as the same string objects, whose hashes V8
 * caches, so a click costs a few lookups instead of building and hashing long keys.
 */
export class Increments {
  readonly rows: Increment[] = [];
  private readonly root = new Map<string, Map<string, Map<number, RollupScope>>>();

  scope(orgId: string, linkId: string, day: number): RollupScope {
    let byLink = this.root.get(orgId);
    if (byLink === undefined) {
      byLink = new Map();
      this.root.set(orgId, byLink);
    }
    let byDay = byLink.get(linkId);
    if (byDay === undefined) {
      byDay = new Map();
      byLink.set(linkId, byDay);
    }
    let scope = byDay.get(day);
    if (scope === undefined) {
      scope = new RollupScope(this.rows, orgId, linkId, day);
      byDay.set(day, scope);
    }
    return scope;
  }

  /**
   * The rows in their tables' key order: per-link rows by (link, day, dimension, value), then the
   * organizations' (link '') by (organization, dimension, day, value). Two batches writing the same rows
   * lock them in the same order, so they wait for each other instead of deadlocking, and the upserts walk
   * each index forwards. Each level of the tree is sorted on its own: 100,000 clicks spread over 5,000
   * links (248,579 rows) took 415 to 540 ms sorted row by row on four columns, 160 to 240 ms this way.
   */
  inKeyOrder(): { links: Increment[]; orgs: Increment[] } {
    const links: Increment[] = [];
    const orgs: Increment[] = [];
    const linkDays: [string, Map<number, RollupScope>][] = [];
    for (const orgId of sortedKeys(this.root)) {
      const byLink = this.root.get(orgId) as Map<string, Map<number, RollupScope>>;
      for (const [linkId, byDay] of byLink) if (linkId !== '') linkDays.push([linkId, byDay]);
      const orgDays = byLink.get('');
      if (orgDays === undefined) continue;
      // (dimension, day, value): the days of each dimension, each in order.
      const byDimension = new Map<string, [number, Map<string, Increment>][]>();
      for (const day of sortedKeys(orgDays))
        for (const [dimension, byValue] of (orgDays.get(day) as RollupScope).byDimension) {
          let days = byDimension.get(dimension);
          if (days === undefined) {
            days = [];
            byDimension.set(dimension, days);
          }
          days.push([day, byValue]);
        }
      for (const dimension of sortedKeys(byDimension))
        for (const [, byValue] of byDimension.get(dimension) as [number, Map<string, Increment>][])
          pushInOrder(orgs, byValue);
    }
    linkDays.sort((a, b) => compare(a[0], b[0]));
    for (const [, byDay] of linkDays)
      for (const day of sortedKeys(byDay)) {
        const { byDimension } = byDay.get(day) as RollupScope;
        for (const dimension of sortedKeys(byDimension))
          pushInOrder(links, byDimension.get(dimension) as Map<string, Increment>);
      }
    return { links, orgs };
  }
}

/** JavaScript's string order (UTF-16 units, the C order for the ASCII of ids and codes), numbers by value. */
function compare<K extends string | number>(a: K, b: K): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys<K extends string | number>(map: ReadonlyMap<K, unknown>): K[] {
  return [...map.keys()].sort(compare);
}

function pushInOrder(into: Increment[], byValue: ReadonlyMap<string, Increment>): void {
  for (const value of sortedKeys(byValue)) into.push(byValue.get(value) as Increment);
}
