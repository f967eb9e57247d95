import { type ClickSource, DAY_MS, type ExportRow, isWhole, type Scope } from '../model.js';
import type { ListedClick } from '../read/click-reads.js';
import type { ClickhouseClient } from './client.js';
import { dayOf, literal, raw, sql } from './literal.js';
import { FIRST_OUTCOME, type Tables } from './schema.js';
import type { ScopeRepo } from './scope-repo.js';

/**
 * The two reads of raw clicks: one link's newest first (a page of the clicks list), the scope's oldest
 * first (the export, one streamed query a page at a time). A click's id is `<batch id>-<seq>`, stable
 * across retries; ties in time are broken by it, as the SQL store breaks them by block and index.
 */

interface RawClick {
  batch_id: string;
  seq: number;
  /** Epoch milliseconds as text (a UInt64); named apart from `at`, which WHERE and ORDER BY read. */
  at_ms: string;
  link_id: string;
  variant: number | null;
  routed: string;
  country: string;
  city: string;
  device: string;
  source_app: string;
  referrer_host: string;
  platform_key: string;
  tap_id: string;
  expired: number;
  qr: number;
}

/** Which of a tap's rows is its first, as the outcome rollups count it. */
const FIRST = raw(FIRST_OUTCOME);
const COLUMNS = raw(
  'batch_id, seq, toString(at) AS at_ms, link_id, variant, routed, country, city, device, source_app, ' +
    'referrer_host, platform_key, tap_id, expired, qr',
);
/** '' is how the table writes an absent value. */
const orNull = (value: string): string | null => (value === '' ? null : value);
const sourceOf = (click: RawClick): ClickSource => (click.qr === 1 ? 'qr' : 'link');
/** A visit to an expired link is `expired`; else its tap's first outcome, when there is one. */
const outcomeOf = (click: RawClick, reported: Map<string, string>): string | null =>
  click.expired === 1 ? 'expired' : click.tap_id === '' ? null : (reported.get(click.tap_id) ?? null);

export function createClickhouseRawReads(client: ClickhouseClient, t: Tables, scopes: ScopeRepo) {
  /** The first outcome of each of the organization's tap ids given (taps without one are absent). */
  async function outcomes(
    orgId: string,
    clicks: readonly RawClick[],
    linkId?: string,
  ): Promise<Map<string, string>> {
    const tapIds = [...new Set(clicks.flatMap((click) => (click.tap_id === '' ? [] : [click.tap_id])))];
    if (tapIds.length === 0) return new Map();
    const statement = sql`SELECT tap_id, argMin(outcome, ${FIRST}) AS first_outcome FROM ${t.outcomes}
      WHERE org_id = ${orgId}${linkId === undefined ? raw('') : raw(` AND link_id = ${literal(linkId)}`)}
        AND tap_id IN ${tapIds} GROUP BY tap_id`;
    const rows = await client.rows<{ tap_id: string; first_outcome: string }>(statement, {
      max_query_size: String(Math.max(262_144, statement.length + 4096)),
    });
    return new Map(rows.map((row) => [row.tap_id, row.first_outcome]));
  }

  /** The start of the newest whole days holding `need` of the link's human clicks since `fromMs`. */
  async function pageStart(orgId: string, linkId: string, fromMs: number, need: number): Promise<number> {
    const fromDay = Math.max(0, Math.floor(fromMs / DAY_MS));
    const days = await client.rows<{ epoch_day: number; n: string }>(
      sql`SELECT toUInt32(day) AS epoch_day, sum(clicks) AS n FROM ${t.linkRollups}
        WHERE org_id = ${orgId} AND link_id = ${linkId} AND dimension = 'total' AND day >= ${dayOf(fromDay)}
        GROUP BY epoch_day ORDER BY epoch_day DESC`,
    );
    let seen = 0;
    for (const day of days) {
      seen += Number(day.n);
      if (seen >= need) return Math.max(fromMs, Number(day.epoch_day) * DAY_MS);
    }
    return fromMs;
  }

  return {
    /** One link's human clicks since `fromMs`, newest first, each with its tap's outcome when reported. */
    async clicks(linkId: string, fromMs: number, limit: number, offset: number): Promise<ListedClick[]> {
      const orgId = await scopes.orgOfLink(linkId);
      if (orgId === null || limit <= 0) return [];
      const pageFrom = async (sinceMs: number) =>
        client.rows<RawClick>(
          sql`SELECT ${COLUMNS} FROM ${t.clicks}
            WHERE org_id = ${orgId} AND link_id = ${linkId} AND at >= ${Math.trunc(sinceMs)} AND bot = 0
              AND day >= ${dayOf(Math.max(0, Math.floor(sinceMs / DAY_MS)))}
            ORDER BY at DESC, batch_id DESC, seq DESC LIMIT ${Math.trunc(offset)}, ${Math.trunc(limit)}`,
        );
      // 18.16 sorts every row the WHERE keeps (no read in key order): a busy link's 30 days are hundreds of
      // thousands. The link's human clicks per day (its `total` rollup, a few rows) say from which day the
      // page's rows are found; a page read from there is the same page whenever it comes back full (every
      // row left out is older than every row kept). Rollups counting clicks the raw table no longer has
      // (older than retention, backfilled rollups) can make it come back short: then the whole window.
      // The `day` bound is the same bound again, for the partitions (months) it lets the read skip.
      const since = await pageStart(orgId, linkId, fromMs, offset + limit);
      let page = await pageFrom(since);
      if (since > fromMs && page.length < limit) page = await pageFrom(fromMs);
      const reported = await outcomes(orgId, page, linkId);
      return page.map((click) => ({
        id: `${click.batch_id}-${click.seq}`,
        at: Number(click.at_ms),
        source_app: orNull(click.source_app),
        country: orNull(click.country),
        city: orNull(click.city),
        device: click.device,
        tap_id: orNull(click.tap_id),
        source: sourceOf(click),
        outcome: outcomeOf(click, reported),
      }));
    },

    /**
     * The scope's human clicks since `fromMs` in time order, `pageSize` at a time: one query streamed, so
     * memory holds a page. Clicks of a link no longer in the main database are left out, as the SQL
     * store's join on `links` leaves them out.
     */
    async *exportPages(scope: Scope, fromMs: number, pageSize = 5000): AsyncGenerator<ExportRow[]> {
      const ids = isWhole(scope) ? null : await scopes.linkIds(scope);
      if (ids !== null && ids.length === 0) return;
      const links = ids === null ? raw('') : raw(` AND link_id IN ${literal(ids)}`);
      const statement = sql`SELECT ${COLUMNS} FROM ${t.clicks}
        WHERE org_id = ${scope.orgId}${links} AND at >= ${Math.trunc(fromMs)} AND bot = 0
        ORDER BY at, batch_id, seq`;
      const slugs = new Map<string, string>();
      async function page(clicks: RawClick[]): Promise<ExportRow[]> {
        const unknown = [...new Set(clicks.map((click) => click.link_id))].filter((id) => !slugs.has(id));
        for (const [id, slug] of await scopes.slugs(scope.orgId, unknown)) slugs.set(id, slug);
        const reported = await outcomes(scope.orgId, clicks);
        return clicks.flatMap((click) => {
          const slug = slugs.get(click.link_id);
          if (slug === undefined) return [];
          return [
            {
              id: `${click.batch_id}-${click.seq}`,
              at: Number(click.at_ms),
              link_id: click.link_id,
              slug,
              variant: click.variant,
              routed: orNull(click.routed),
              country: orNull(click.country),
              city: orNull(click.city),
              device: click.device,
              source_app: orNull(click.source_app),
              referrer_host: orNull(click.referrer_host),
              platform_key: orNull(click.platform_key),
              tap_id: orNull(click.tap_id),
              source: sourceOf(click),
              outcome: outcomeOf(click, reported),
            },
          ];
        });
      }
      let pending: RawClick[] = [];
      const settings = {
        max_query_size: String(Math.max(262_144, statement.length + 4096)),
        // A large export sorts on disk rather than failing on memory.
        max_bytes_before_external_sort: '1000000000',
      };
      for await (const chunk of client.stream<RawClick>(statement, settings)) {
        pending.push(...chunk);
        while (pending.length >= pageSize) {
          const rows = await page(pending.slice(0, pageSize));
          pending = pending.slice(pageSize);
          if (rows.length > 0) yield rows;
        }
      }
      if (pending.length > 0) {
        const rows = await page(pending);
        if (rows.length > 0) yield rows;
      }
    },
  };
}
