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
  private readonly byDimension = new Map<string, Map<string, Increment>>();

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
}
