import { ALL_ORGS, CELL_OUTCOME } from '../escape-cells.js';
import { type DayRange, num, type Scope, topBySlug } from '../model.js';
import { type Sum, summaryOf } from '../read/rollup-reads.js';
import type { ClickhouseClient } from './client.js';
import { type Correction, correctionSql, correctionsOf } from './group-corrections.js';
import type { GroupHistory } from './group-history.js';
import { dayOf, literal, type RawSql, raw, sql } from './literal.js';
import { groupsCompleteFrom, ROLLUP_DIMENSIONS, type Tables } from './schema.js';
import type { ScopeRepo } from './scope-repo.js';

/**
 * The aggregate reads: sums, daily, linkTotals, perLink, linkSums, with the SQL store's answers
 * (read/rollup-reads.ts). Click dimensions come from the rollup views (`org_rollups` for a whole
 * organization, `group_rollups` for one folder or one tag, `link_rollups` for any other set of links),
 * outcome dimensions from the outcome rollups (`org_outcome_rollups`, `group_outcome_rollups`,
 * `outcome_rollups`: each tap's first outcome, schema.ts). A group's rows are its links' clicks as they
 * were stamped; the links that moved since are corrected from their per-link rows (group-corrections.ts).
 * Any other set of links (a folder and a tag together) is resolved to its link ids in the main database
 * (scope-repo.ts), and the ids go into one `IN` list however many there are.
 *
 * Which dimension a scope answers follows the SQL store exactly, so switching stores changes no answer:
 * `link` for a whole organization or one folder or tag (the rows a summary keeps), `variant` and
 * `variant_outcome` only for per-link scopes (a link, or a folder and a tag together), `cell_outcome`
 * alone for every organization together (`*`, the bandit's read).
 */

const CLICK_DIMENSIONS = new Set([...ROLLUP_DIMENSIONS, 'variant']);
const OUTCOME_DIMENSIONS = new Set(['outcome', 'platform_outcome', 'variant_outcome', CELL_OUTCOME]);
const LINK_ONLY = new Set(['variant', 'variant_outcome']);

/**
 * The links a read covers: the whole organization (`ids` null), one group with its moved links'
 * corrections, or a list of link ids.
 */
type Links =
  | { orgId: string; ids: null; group?: undefined }
  | { orgId: string; ids: null; group: { grp: string; corrections: Correction[] } }
  | { orgId: string; ids: readonly string[]; group?: undefined };
type IdLinks = Links & { ids: readonly string[] };

interface Row {
  dimension: string;
  value: string;
  /** Named apart from every column: ClickHouse lets a SELECT alias shadow a column in WHERE. */
  n: string | number;
  link_id?: string;
}

/** `IN` lists run long for a big folder: the statement's size limit follows the statement. */
const sized = (statement: string) => ({ max_query_size: String(Math.max(262_144, statement.length + 4096)) });

const dayRange = (column: string, window: DayRange) =>
  raw(`${column} >= ${dayOf(window.from).text} AND ${column} <= ${dayOf(window.to).text}`);

export function createClickhouseReads(
  client: ClickhouseClient,
  t: Tables,
  scopes: ScopeRepo,
  history: Pick<GroupHistory, 'moved'>,
) {
  const query = <T>(statement: string) => client.rows<T>(statement, sized(statement));
  // Read once: the mark is written before group_rollups exists, so before any reader of it (schema.ts).
  let groupsFrom: Promise<number> | null = null;
  const completeFrom = () => {
    groupsFrom ??= groupsCompleteFrom(client, t).catch((error: unknown) => {
      groupsFrom = null;
      throw error;
    });
    return groupsFrom;
  };

  const linkFilter = (links: Links): RawSql => {
    const org = `org_id = ${literal(links.orgId)}`;
    if (links.group) return raw(`${org} AND grp = ${literal(links.group.grp)}`);
    return raw(links.ids === null ? org : `${org} AND link_id IN ${literal(links.ids)}`);
  };
  const clickTable = (links: Links) =>
    links.group ? t.groupRollups : links.ids === null ? t.orgRollups : t.linkRollups;

  /**
   * Where links' human clicks a day are read: `link_days` (a row per link and day), or, for a window that
   * starts before a database made earlier got it (schema.ts, markGroupsFrom), `link_rollups`' totals.
   */
  async function linkDaysFor(window: DayRange): Promise<{ table: RawSql; human: RawSql }> {
    return window.from >= (await completeFrom())
      ? { table: t.linkDays, human: raw('1') }
      : { table: t.linkRollups, human: raw(`dimension = 'total'`) };
  }

  /** A group's moved links' rows of a per-link table, each weighted by its correction (none: no read). */
  function corrected<R>(
    links: Links,
    build: (from: RawSql, where: RawSql, weight: RawSql) => string,
    table: RawSql,
  ): Promise<R[]> {
    if (!links.group || links.group.corrections.length === 0) return Promise.resolve([]);
    const { where, weight } = correctionSql(links.orgId, links.group.corrections);
    return query<R>(build(table, where, weight));
  }

  /** Click dimensions' sums from a rollup view, per link when `byLink`; a group's corrections added. */
  async function clickSums(links: Links, dimensions: string[], window: DayRange, byLink: boolean) {
    if (dimensions.length === 0) return [];
    const group = raw(byLink ? 'link_id, dimension, value' : 'dimension, value');
    const moved = dimensions.filter((dimension) => dimension !== 'link');
    const parts = await Promise.all([
      query<Row>(
        sql`SELECT ${group}, sum(clicks) AS n FROM ${clickTable(links)}
          WHERE ${linkFilter(links)} AND dimension IN ${dimensions} AND ${dayRange('day', window)}
          GROUP BY ${group}`,
      ),
      moved.length === 0
        ? []
        : corrected<Row>(
            links,
            (from, where, weight) =>
              sql`SELECT dimension, value, sum(toInt64(clicks) * ${weight}) AS n FROM ${from}
                WHERE ${where} AND dimension IN ${moved} AND ${dayRange('day', window)}
                GROUP BY dimension, value`,
            t.linkRollups,
          ),
      dimensions.includes('link') ? correctedLinks(links, window) : [],
    ]);
    return parts.flat();
  }

  /**
   * A group's `link` rows the corrections add or take back: each moved link's human clicks (a group's
   * reads start on or after the mark, so `link_days` is whole for them).
   */
  const correctedLinks = (links: Links, window: DayRange) =>
    corrected<Row>(
      links,
      (from, where, weight) =>
        sql`SELECT link_id, sum(toInt64(clicks) * ${weight}) AS n FROM ${from}
          WHERE ${where} AND ${dayRange('day', window)} GROUP BY link_id`,
      t.linkDays,
    ).then((rows): Row[] => rows.map((row) => ({ dimension: 'link', value: row.link_id ?? '', n: row.n })));

  /** `link` of a set of links: each link's human clicks, as the summary rows hold them. */
  async function linkDimension(links: IdLinks, window: DayRange): Promise<Row[]> {
    const days = await linkDaysFor(window);
    const rows = await query<Row>(
      sql`SELECT 'link' AS link_dimension, link_id, sum(clicks) AS n FROM ${days.table}
        WHERE ${linkFilter(links)} AND ${days.human} AND ${dayRange('day', window)}
        GROUP BY link_id`,
    );
    return rows.map((row) => ({ dimension: 'link', value: row.link_id ?? '', n: row.n }));
  }

  /**
   * Outcome dimensions' sums from the outcome rollups (each tap's first outcome, counted when written):
   * `org_outcome_rollups` for a whole organization, or for every organization when `links` is null (the
   * bandit's `cell_outcome`), `outcome_rollups` for a set of links, per link when `byLink`.
   */
  async function outcomeSums(links: Links | null, dimensions: string[], window: DayRange, byLink: boolean) {
    if (dimensions.length === 0) return [];
    const table =
      links === null || (links.ids === null && !links.group)
        ? t.orgOutcomeRollups
        : links.group
          ? t.groupOutcomeRollups
          : t.outcomeRollups;
    const where = links === null ? raw('1') : linkFilter(links);
    const group = raw(byLink ? 'link_id, dimension, value' : 'dimension, value');
    const parts = await Promise.all([
      query<Row>(
        sql`SELECT ${group}, sum(taps) AS n FROM ${table}
          WHERE ${where} AND dimension IN ${dimensions} AND ${dayRange('day', window)}
          GROUP BY ${group}`,
      ),
      links === null
        ? []
        : corrected<Row>(
            links,
            (from, moved, weight) =>
              sql`SELECT dimension, value, sum(taps * ${weight}) AS n FROM ${from}
                WHERE ${moved} AND dimension IN ${dimensions} AND ${dayRange('day', window)}
                GROUP BY dimension, value`,
            t.outcomeRollups,
          ),
    ]);
    return parts.flat();
  }

  /**
   * The links of a scope: the whole organization stays a filter, one folder or one tag reads its group
   * with its moved links' corrections, anything else becomes ids.
   */
  async function linksOf(scope: Scope, window: DayRange): Promise<Links> {
    const summary = summaryOf(scope);
    if (summary?.grp === null) return { orgId: scope.orgId, ids: null };
    if (summary && window.from >= (await completeFrom())) {
      const [moved, gone] = await Promise.all([
        history.moved(scope.orgId, summary.grp),
        scope.folderId ? scopes.folderExists(scope.orgId, scope.folderId).then((found) => !found) : false,
      ]);
      if (gone) return { orgId: scope.orgId, ids: [] };
      return {
        orgId: scope.orgId,
        ids: null,
        group: { grp: summary.grp, corrections: correctionsOf(moved, summary.grp, window) },
      };
    }
    return { orgId: scope.orgId, ids: await scopes.linkIds(scope) };
  }

  async function sums(scope: Scope, dimensions: string[], window: DayRange): Promise<Sum[]> {
    if (scope.orgId === ALL_ORGS) {
      const wanted = dimensions.filter((dimension) => dimension === CELL_OUTCOME);
      return toSums(await outcomeSums(null, wanted, window, false));
    }
    const summary = summaryOf(scope) !== null;
    const answered = dimensions.filter((dimension) =>
      summary ? !LINK_ONLY.has(dimension) : dimension !== 'link',
    );
    const links = await linksOf(scope, window);
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
    const links = await linksOf(scope, window);
    const byDay = new Map<number, number>();
    if (links.ids !== null && links.ids.length === 0) return byDay;
    type DayRow = { epoch_day: number; n: string };
    const days =
      links.ids === null
        ? { table: clickTable(links), human: raw(`dimension = 'total'`) }
        : await linkDaysFor(window);
    const parts = await Promise.all([
      query<DayRow>(
        sql`SELECT toUInt32(day) AS epoch_day, sum(clicks) AS n FROM ${days.table}
          WHERE ${linkFilter(links)} AND ${days.human} AND ${dayRange('day', window)}
          GROUP BY epoch_day`,
      ),
      corrected<DayRow>(
        links,
        (from, where, weight) =>
          sql`SELECT toUInt32(day) AS epoch_day, sum(toInt64(clicks) * ${weight}) AS n FROM ${from}
            WHERE ${where} AND ${dayRange('day', window)} GROUP BY epoch_day`,
        t.linkDays,
      ),
    ]);
    for (const row of parts.flat()) {
      const day = num(row.epoch_day);
      byDay.set(day, (byDay.get(day) ?? 0) + num(row.n));
    }
    for (const [day, n] of byDay) if (n === 0) byDay.delete(day);
    return byDay;
  }

  async function linkTotals(scope: Scope, window: DayRange): Promise<{ id: string; clicks: number }[]> {
    const links = await linksOf(scope, window);
    if (links.ids !== null && links.ids.length === 0) return [];
    const rows =
      links.ids === null
        ? toSums(await clickSums(links, ['link'], window, false)).map((sum) => ({
            value: sum.value,
            n: sum.clicks,
          }))
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
