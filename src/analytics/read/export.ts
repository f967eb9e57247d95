import { csvCell } from '../../core/csv.js';
import type { ExportRow } from '../model.js';

/**
 * The analytics export as a stream of text chunks, CSV or JSON, built page by page so a 90-day export of
 * a busy organization never sits in memory whole.
 */

export const EXPORT_COLUMNS = [
  'id',
  'at',
  'slug',
  'link_id',
  'variant',
  'routed',
  'country',
  'city',
  'device',
  'source_app',
  'referrer_host',
  'platform_key',
  'outcome',
  'source',
] as const;

/** No tap id: a plain redirect with nothing to report; a tap that never reported: unknown. */
export const outcomeOf = (row: { outcome: string | null; tap_id: string | null }): string =>
  row.outcome ?? (row.tap_id ? 'unknown' : 'redirect');

function csvLine(row: ExportRow): string {
  const cells = [
    row.id,
    new Date(row.at).toISOString(),
    row.slug,
    row.link_id,
    row.variant,
    row.routed,
    row.country,
    row.city,
    row.device,
    row.source_app,
    row.referrer_host,
    row.platform_key,
    outcomeOf(row),
    row.source,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function jsonRow(row: ExportRow) {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    slug: row.slug,
    linkId: row.link_id,
    variant: row.variant,
    routed: row.routed,
    country: row.country,
    city: row.city,
    device: row.device,
    sourceApp: row.source_app,
    referrerHost: row.referrer_host,
    platformKey: row.platform_key,
    outcome: outcomeOf(row),
    source: row.source,
  };
}

export async function* csvChunks(pages: AsyncIterable<ExportRow[]>): AsyncGenerator<string> {
  yield `${EXPORT_COLUMNS.join(',')}\r\n`;
  for await (const page of pages) yield page.map(csvLine).join('');
}

/** `{configured, sampled, days, clicks: [...]}`, streamed. */
export async function* jsonChunks(
  head: { configured: boolean; days: number },
  pages: AsyncIterable<ExportRow[]>,
): AsyncGenerator<string> {
  yield `${JSON.stringify({ ...head, sampled: true }).slice(0, -1)},"clicks":[`;
  let first = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (first ? '' : ',') + page.map((row) => JSON.stringify(jsonRow(row))).join(',');
    first = false;
  }
  yield ']}';
}
