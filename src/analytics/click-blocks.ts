import type { ClickRow, ClickSource } from './model.js';

/**
 * Raw clicks are stored packed: one `click_blocks` row per link per batch, its clicks a JSON array of
 * short tuples. A row per click cost three B-tree inserts of 36-character keys and fourteen bound values,
 * which made the writer thread the most expensive part of a redirect (about 10 µs a click, more than the
 * whole request); a block costs one insert per link per batch, and the rollups answer every aggregate
 * read anyway. Only the clicks list and the export read raw clicks, and they unpack a few blocks.
 *
 * A tuple is `[dt, bot, variant, routed, country, city, device, sourceApp, referrerHost, platformKey,
 * tapId, expired, qr]`, `dt` being milliseconds after the block's `first_at`, with trailing nulls left out. A click's
 * id is `<block id>-<index in the block>`: stable, unique, and in recording order within a block.
 */

export interface BlockRow {
  org_id: string;
  link_id: string;
  first_at: number;
  last_at: number;
  /** Human clicks in the block (bots are stored too, flagged, and never listed). */
  humans: number;
  data: string;
}

export interface StoredClick {
  block: number;
  index: number;
  at: number;
  bot: boolean;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: string;
  sourceApp: string | null;
  referrerHost: string | null;
  platformKey: string | null;
  tapId: string | null;
  /** A visit to an expired link, re-pointed to its expired URL (issue #20). */
  expired: boolean;
  /** `qr` for a visit through the link's QR code; `link` for any other, and for blocks older than sources. */
  source: ClickSource;
}

/**
 * A click's tuple as JSON text, written directly: the same text as `JSON.stringify` of the tuple, without
 * building an array per click and trimming it (a runtime call per click), and with each distinct string
 * escaped once per batch through `quoted` (the destination, device and platform repeat click after click).
 */
function tupleJson(row: ClickRow, firstAt: number, quoted: (text: string) => string): string {
  const rest = [
    row.variant,
    row.routed,
    row.country,
    row.city,
    row.device,
    row.source_app,
    row.referrer_host,
    row.platform_key,
  ];
  let json = `[${row.at - firstAt},${row.bot}`;
  let last = rest.length - 1;
  const expired = row.expired === 1;
  const qr = row.qr === 1;
  if (row.tap_id === null && !expired && !qr) while (last >= 0 && rest[last] === null) last -= 1;
  for (let i = 0; i <= last; i++) {
    const value = rest[i] ?? null;
    json += value === null ? ',null' : typeof value === 'number' ? `,${value}` : `,${quoted(value)}`;
  }
  // Tap ids are unique per click: escaped as they come, never cached.
  const tap = row.tap_id === null ? 'null' : JSON.stringify(row.tap_id);
  if (qr) return `${json},${tap},${expired ? 1 : 0},1]`;
  if (expired) return `${json},${tap},1]`;
  return row.tap_id === null ? `${json}]` : `${json},${tap}]`;
}

/**
 * Clicks a block holds at most. The clicks list reads whole blocks, newest first, to show a page of at
 * most 200: without a cap a hot link's batch was one block of up to 100,000 clicks (megabytes of JSON to
 * parse for 200 of them), and the list's cost grew with the traffic. With it the list reads one or two
 * blocks of at most this many, however busy the link; a spread batch's blocks are far smaller anyway.
 */
export const MAX_BLOCK_CLICKS = 1000;

/**
 * A batch's clicks as blocks, per link in recording order: a block per link, or several of at most
 * `MAX_BLOCK_CLICKS` in order (written in that order, so a later block has a larger id).
 */
export function packBlocks(rows: readonly ClickRow[]): BlockRow[] {
  const byLink = new Map<string, ClickRow[]>();
  for (const row of rows) {
    const list = byLink.get(row.link_id);
    if (list) list.push(row);
    else byLink.set(row.link_id, [row]);
  }
  const escaped = new Map<string, string>();
  const quoted = (text: string): string => {
    let json = escaped.get(text);
    if (json === undefined) {
      json = JSON.stringify(text);
      escaped.set(text, json);
    }
    return json;
  };
  const blocks: BlockRow[] = [];
  for (const [linkId, all] of byLink) {
    for (let start = 0; start < all.length; start += MAX_BLOCK_CLICKS) {
      const clicks = all.length <= MAX_BLOCK_CLICKS ? all : all.slice(start, start + MAX_BLOCK_CLICKS);
      let [first, last, humans] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0];
      for (const click of clicks) {
        if (click.at < first) first = click.at;
        if (click.at > last) last = click.at;
        if (!click.bot) humans += 1;
      }
      const data = `[${clicks.map((click) => tupleJson(click, first, quoted)).join(',')}]`;
      blocks.push({
        org_id: clicks[0]?.org_id ?? '',
        link_id: linkId,
        first_at: first,
        last_at: last,
        humans,
        data,
      });
    }
  }
  return blocks;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const integer = (value: unknown): number | null => (Number.isInteger(value) ? (value as number) : null);

/** A block's clicks, in recording order. */
export function unpackBlock(block: number, firstAt: number, data: string): StoredClick[] {
  const tuples = JSON.parse(data) as unknown[][];
  return tuples.map((tuple, index) => ({
    block,
    index,
    at: firstAt + Number(tuple[0] ?? 0),
    bot: tuple[1] === 1,
    variant: integer(tuple[2]),
    routed: text(tuple[3]),
    country: text(tuple[4]),
    city: text(tuple[5]),
    device: text(tuple[6]) ?? 'other',
    sourceApp: text(tuple[7]),
    referrerHost: text(tuple[8]),
    platformKey: text(tuple[9]),
    tapId: text(tuple[10]),
    expired: tuple[11] === 1,
    source: tuple[12] === 1 ? 'qr' : 'link',
  }));
}

/** A click's stored fields as the row-per-click columns named them (the export's and the old table's). */
export const clickColumns = (click: StoredClick) => ({
  variant: click.variant,
  routed: click.routed,
  country: click.country,
  city: click.city,
  device: click.device,
  source_app: click.sourceApp,
  referrer_host: click.referrerHost,
  platform_key: click.platformKey,
  tap_id: click.tapId,
  source: click.source,
});

export const clickId = (click: Pick<StoredClick, 'block' | 'index'>): string =>
  `${click.block}-${click.index}`;

/** Time order, ties in recording order (a later block, then a later index, is later). */
export function oldestFirst(a: StoredClick, b: StoredClick): number {
  return a.at - b.at || a.block - b.block || a.index - b.index;
}

export const blockValues = (row: BlockRow): unknown[] => [
  row.org_id,
  row.link_id,
  row.first_at,
  row.last_at,
  row.humans,
  row.data,
];
