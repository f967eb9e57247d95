import { ALL_ORGS, CELL_OUTCOME } from '../escape-cells.js';
import { type DayRange, isWhole, num, type Scope, topBySlug } from '../model.js';
import type { Sum } from '../read/rollup-reads.js';
import type { ClickhouseClient } from './client.js';
import { dayOf, literal, type RawSql, raw, sql } from './literal.js';
import { ROLLUP_DIMENSIONS, type Tables } from './schema.js';
import type { ScopeRepo } from './scope-repo.js';

/**
 * The aggregate reads: sums, daily, linkTotals, perLink, linkSums, with the SQL store's answers
 * (read/rollup-reads.ts). Click dimensions come from the rollup views (`org_rollups` for a whole
 * organization, `link_rollups` for any set of links), outcome dimensions from the outcome rollups
 * (`org_outcome_rollups`, `outcome_rollups`: each tap's first outcome, schema.ts). A folder or a tag is resolved to its link ids in the main database (scope-repo.ts), and the
 * ids go into one `IN` list however many there are.
 *
 * Which dimension a scope answers follows the SQL store exactly, so switching stores changes no answer:
 * `link` for a whole organization or one folder or tag (the rows a summary keeps), `variant` and
 * `variant_outcome` only for per-link scopes (a link, or a folder and a tag together), `cell_outcome`
 * alone for every organization together (`*`, the bandit's read).
 */

const CLICK_DIMENSIONS = new Set([...ROLLUP_DIMENSIONS, 'variant']);
const OUTCOME_DIMENSIONS = new Set(['outcome', 'platform_outcome', 'variant_outcome', CELL_OUTCOME]);
const LINK_ONLY = new Set(['variant', 'variant_outcome']);

/** The links a read covers: the whole organization, or a list of its link ids. */
type Links = { orgId: string; ids: null } | { orgId: string; ids: readonly string[] };

interface Row {
  dimension: string;
  value: string;
  /** Named apart from every column: ClickHouse lets a SELECT alias shadow a column in WHERE. */
  n: string | number;
  link_id?: string;
}

/** The SQL store's summary scopes: a whole organization, or exactly one folder or one tag. */
const isSummary = (scope: Scope) => isWhole(scope) || (!scope.linkId && !(scope.folderId && scope.tag));

/** `IN` lists run long for a big folder: the statement's size limit follows the statement. */
const sized = (statement: string) => ({ max_query_size: String(Math.max(262_144, statement.length + 4096)) });

const dayRange = (column: string, window: DayRange) =>
  raw(`${column} >= ${dayOf(window.from).text} AND ${column} <= ${dayOf(window.to).text}`);

export function createClickhouseReads(client: ClickhouseClient, t: Tables, scopes: ScopeRepo) {
  const query = <T>(statement: string) => client.rows<T>(statement, sized(statement));

  const linkFilter = (links: Links): RawSql =>
    links.ids === null
      ? raw(`org_id = ${literal(links.orgId)}`)
      : raw(`org_id = ${literal(links.orgId)} AND link_id IN ${literal(links.ids)}`);

  /** Click dimensions' sums from a rollup view, per link when `byLink`. */
  async function clickSums(links: Links, dimensions: string[], window: DayRange, byLink: boolean) {
    if (dimensions.length === 0) return [];
    const table = links.ids === null ? t.orgRollups : t.linkRollups;
    const group = raw(byLink ? 'link_id, dimension, value' : 'dimension, value');
    return query<Row>(
      sql`SELECT ${group}, sum(clicks) AS n FROM ${table}
        WHERE ${linkFilter(links)} AND dimension IN ${dimensions} AND ${dayRange('day', window)}
        GROUP BY ${group}`,
    );
  }

  /** `link` of a set of links: each link's human clicks, as the summary rows hold them. */
  const linkDimension = (links: Links & { ids: readonly string[] }, window: DayRange) =>
    query<Row>(
      sql`SELECT 'link' AS link_dimension, link_id, sum(clicks) AS n FROM ${t.linkRollups}
        WHERE ${linkFilter(links)} AND dimension = 'total' AND ${dayRange('day', window)}
        GROUP BY link_id`,
    ).then((rows) => rows.map((row) => ({ dimension: 'link', value: row.link_id ?? '', n: row.n })));

  /**
   * Outcome dimensions' sums from the outcome rollups (each tap's first outcome, counted when written):
   * `org_outcome_rollups` for a whole organization, or for every organization when `links` is null (the
   * bandit's `cell_outcome`), `outcome_rollups` for a set of links, per link when `byLink`.
   */
  async function outcomeSums(links: Links | null, dimensions: string[], window: DayRange, byLink: boolean) {
    if (dimensions.length === 0) return [];
    const table = links === null || links.ids === null ? t.orgOutcomeRollups : t.outcomeRollups;
    const where = links === null ? raw('1') : linkFilter(links);
    const group = raw(byLink ? 'link_id, dimension, value' : 'dimension, value');
    return query<Row>(
      sql`SELECT ${group}, sum(taps) AS n FROM ${table}
        WHERE ${where} AND dimension IN ${dimensions} AND ${dayRange('day', window)}
        GROUP BY ${group}`,
    );
  }

  /** The links of a scope: the whole organization stays a filter, anything else becomes ids. */
  async function linksOf(scope: Scope): Promise<Links> {
    if (isWhole(scope)) return { orgId: scope.orgId, ids: null };
    return { orgId: scope.orgId, ids: await scopes.linkIds(scope) };
  }

  async function sums(scope: Scope, dimensions: string[], window: DayRange): Promise<Sum[]> {
    if (scope.orgId === ALL_ORGS) {
      const wanted = dimensions.filter((dimension) => dimension === CELL_OUTCOME);
      return toSums(await outcomeSums(null, wanted, window, false));
    }
    const summary = isSummary(scope);
    const answered = dimensions.filter((dimension) =>
      summary ? !LINK_ONLY.has(dimension) : dimension !== 'link',
    );
    const links = await linksOf(scope);
    if (links.ids !== null && links.ids.length === 0) return [];
    const clicks = answered.filter((dimension) => CLICK_DIMENSIONS.has(dimension));
    if (links.ids === null && answered.includes('link')) clicks.push('link');
    // The tables are apart, so the reads go at once: the answer waits for the slowest, not the sum.
    const parts = await Promise.all([
      clickSums(links, clicks, window, false),
      outcomeSums(
        links,
        answered.filter((d) => OUTCOME_DIMENSIONS.has(d)),
        window,
        false,
      ),
      links.ids !== null && answered.includes('link')
        ? linkDimension({ ...links, ids: links.ids }, window)
        : [],
    ]);
    return toSums(parts.flat());
  }

  async function daily(scope: Scope, window: DayRange): Promise<Map<number, number>> {
    const links = await linksOf(scope);
    const byDay = new Map<number, number>();
    if (links.ids !== null && links.ids.length === 0) return byDay;
    const table = links.ids === null ? t.orgRollups : t.linkRollups;
    const rows = await query<{ epoch_day: number; n: string }>(
      sql`SELECT toUInt32(day) AS epoch_day, sum(clicks) AS n FROM ${table}
        WHERE ${linkFilter(links)} AND dimension = 'total' AND ${dayRange('day', window)}
        GROUP BY epoch_day`,
    );
    for (const row of rows) if (num(row.n) !== 0) byDay.set(num(row.epoch_day), num(row.n));
    return byDay;
  }

  async function linkTotals(scope: Scope, window: DayRange): Promise<{ id: string; clicks: number }[]> {
    const links = await linksOf(scope);
    if (links.ids !== null && links.ids.length === 0) return [];
    const rows =
      links.ids === null
        ? await clickSums(links, ['link'], window, false)
        : await linkDimension({ ...links, ids: links.ids }, window);
    return rows.filter((row) => num(row.n) !== 0).map((row) => ({ id: row.value, clicks: num(row.n) }));
  }

  return {
    sums,
    daily,
    linkTotals,

    /** The scope's links by clicks, most first (slug breaks ties), at most `limit`: as rollup-reads.ts. */
    async perLink(scope: Scope, window: DayRange, limit: number) {
      return topBySlug(await linkTotals(scope, window), limit, (ids) => scopes.slugs(scope.orgId, ids));
    },

    /** Sums per (link, dimension, value) for the given links of one organization. */
    async linkSums(orgId: string, ids: readonly string[], dimensions: string[], window: DayRange) {
      if (ids.length === 0) return [];
      const links: Links = { orgId, ids: [...new Set(ids)] };
      const parts = await Promise.all([
        clickSums(
          links,
          dimensions.filter((d) => CLICK_DIMENSIONS.has(d)),
          window,
          true,
        ),
        outcomeSums(
          links,
          dimensions.filter((d) => OUTCOME_DIMENSIONS.has(d)),
          window,
          true,
        ),
      ]);
      return parts
        .flat()
        .filter((row) => num(row.n) !== 0)
        .map((row) => ({
          linkId: row.link_id ?? '',
          dimension: row.dimension,
          value: row.value,
          clicks: num(row.n),
        }));
    },
  };
}

/** Rows summed by (dimension, value); zero sums are not shown (as the SQL store's summary reads). */
function toSums(rows: readonly Row[]): Sum[] {
  const totals = new Map<string, Sum>();
  for (const row of rows) {
    const key = `${row.dimension}\n${row.value}`;
    const sum = totals.get(key) ?? { dimension: row.dimension, value: row.value, clicks: 0 };
    sum.clicks += num(row.n);
    totals.set(key, sum);
  }
  return [...totals.values()].filter((sum) => sum.clicks !== 0);
}
