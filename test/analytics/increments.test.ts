import { describe, expect, it } from 'vitest';
import { type Increment, Increments } from '../../src/analytics/write/increments.js';

/** The reference order: every row compared column by column, as the rollup tables' primary keys do. */
function byColumns(columns: (keyof Increment)[]) {
  return (a: Increment, b: Increment): number => {
    for (const column of columns) if (a[column] !== b[column]) return a[column] < b[column] ? -1 : 1;
    return 0;
  };
}

describe('Increments in key order', () => {
  it("gives each table's rows in its primary-key order, every row once", () => {
    const inc = new Increments();
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const orgs = ['org-b', 'org-a', 'org-c'];
    const links = ['l-9', 'l-10', 'L-2', 'l-1', 'l-a', 'l-Z'];
    for (let i = 0; i < 2000; i++) {
      const org = pick(orgs);
      const day = pick([20_001, 19_999, 20_000, 20_010]);
      const dimension = pick(['country', 'device', 'total', 'Cell', 'link']);
      const value = pick(['', 'US', 'de', 'Z', 'a', '10', '9']);
      // A link belongs to one organization: its id says which.
      inc.scope(org, random() < 0.3 ? '' : `${pick(links)}.${org}`, day).add(dimension, value, 1 + (i % 3));
    }
    const { links: linkRows, orgs: orgRows } = inc.inKeyOrder();
    expect(linkRows).toEqual(
      inc.rows.filter((row) => row.link_id !== '').sort(byColumns(['link_id', 'day', 'dimension', 'value'])),
    );
    expect(orgRows).toEqual(
      inc.rows.filter((row) => row.link_id === '').sort(byColumns(['org_id', 'dimension', 'day', 'value'])),
    );
    expect(linkRows.length + orgRows.length).toBe(inc.rows.length);
    expect(orgRows.length).toBeGreaterThan(20);
  });
});
