/**
 * The packed click format as migration 012 wrote it, frozen here (issue #21: migrations are history and
 * import no domain code). src/analytics/click-blocks.ts reads these blocks and may grow the format (it
 * did: an optional 12th element for expired visits); this copy must not follow it.
 */

/** A raw click row as the 008 table held it. */
export interface ClickRow {
  org_id: string;
  link_id: string;
  /** Epoch milliseconds. */
  at: number;
  bot: 0 | 1;
  variant: number | null;
  routed: string | null;
  country: string | null;
  city: string | null;
  device: string;
  source_app: string | null;
  referrer_host: string | null;
  platform_key: string | null;
  tap_id: string | null;
}

/**
 * Raw clicks are stored packed: one `click_blocks` row per link per batch, its clicks a JSON array of
 * short tuples. A row per click cost three B-tree inserts of 36-character keys and fourteen bound values,
 * which made the writer thread the most expensive part of a redirect (about 10 µs a click, more than the
 * whole request); a block costs one insert per link per batch, and the rollups answer every aggregate
 * read anyway. Only the clicks list and the export read raw clicks, and they unpack a few blocks.
 *
 * A tuple is `[dt, bot, variant, routed, country, city, device, sourceApp, referrerHost, platformKey,
 * tapId]`, `dt` being milliseconds after the block's `first_at`, with trailing nulls left out. A click's
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
  if (row.tap_id === null) while (last >= 0 && rest[last] === null) last -= 1;
  for (let i = 0; i <= last; i++) {
    const value = rest[i] ?? null;
    json += value === null ? ',null' : typeof value === 'number' ? `,${value}` : `,${quoted(value)}`;
  }
  // Tap ids are unique per click: escaped as they come, never cached.
  return row.tap_id === null ? `${json}]` : `${json},${JSON.stringify(row.tap_id)}]`;
}

/** A batch's clicks as blocks, one per link, each in recording order. */
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
  for (const [linkId, clicks] of byLink) {
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
});
