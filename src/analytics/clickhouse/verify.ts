import type { Kysely } from 'kysely';
import type { Store } from '../../store/database.js';
import type { AnalyticsDatabase, DayRange } from '../model.js';
import type { AnalyticsStore } from '../repo.js';

/**
 * `linkhop analytics verify`: each organization's human clicks per link over a window, as the two
 * stores answer them (`linkTotals`, the read behind the API's per-link list), compared link by link. Any
 * link whose counts differ is a difference; none means the window agrees.
 */

export interface Difference {
  orgId: string;
  linkId: string;
  /** '' for a link no longer in the main database. */
  slug: string;
  sql: number;
  clickhouse: number;
}

export interface VerifyReport {
  organizations: number;
  links: number;
  sqlClicks: number;
  clickhouseClicks: number;
  differences: Difference[];
}

export async function verify(deps: {
  main: Store;
  sql: Pick<AnalyticsStore, 'linkTotals'>;
  clickhouse: Pick<AnalyticsStore, 'linkTotals'>;
  window: DayRange;
}): Promise<VerifyReport> {
  const db = deps.main.db as unknown as Kysely<AnalyticsDatabase>;
  const orgs = await db.selectFrom('organizations').select('id').orderBy('id').execute();
  const report: VerifyReport = {
    organizations: orgs.length,
    links: 0,
    sqlClicks: 0,
    clickhouseClicks: 0,
    differences: [],
  };
  for (const { id: orgId } of orgs) {
    const scope = { orgId };
    const [sql, clickhouse] = await Promise.all([
      deps.sql.linkTotals(scope, deps.window),
      deps.clickhouse.linkTotals(scope, deps.window),
    ]);
    const counts = new Map<string, { sql: number; clickhouse: number }>();
    for (const row of sql) counts.set(row.id, { sql: row.clicks, clickhouse: 0 });
    for (const row of clickhouse) {
      const count = counts.get(row.id) ?? { sql: 0, clickhouse: 0 };
      count.clickhouse = row.clicks;
      counts.set(row.id, count);
    }
    report.links += counts.size;
    const differing: Omit<Difference, 'slug'>[] = [];
    for (const [linkId, count] of counts) {
      report.sqlClicks += count.sql;
      report.clickhouseClicks += count.clickhouse;
      if (count.sql !== count.clickhouse) differing.push({ orgId, linkId, ...count });
    }
    const slugs = await slugsOf(
      db,
      differing.map((row) => row.linkId),
    );
    for (const row of differing.sort((a, b) => (a.linkId < b.linkId ? -1 : 1)))
      report.differences.push({ ...row, slug: slugs.get(row.linkId) ?? '' });
  }
  return report;
}

async function slugsOf(db: Kysely<AnalyticsDatabase>, ids: string[]): Promise<Map<string, string>> {
  const slugs = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('links')
      .select(['id', 'slug'])
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const row of rows) slugs.set(row.id, row.slug);
  }
  return slugs;
}
