import type { SourceItem } from '../schema.js';
import { SourceError } from './http.js';
import { type ImportSource, isoDate } from './items.js';

/**
 * The CSV source: a header row naming the columns `url, slug, tags, title` (any order, any case; only
 * `url` is required; `created_at` is read too when present), then one link a row. RFC 4180: fields may be
 * quoted, quotes doubled inside, line breaks inside quotes kept. Tags in one cell are separated by `|`,
 * `,` or `;`.
 *
 * The text is read in one pass, row by row, never as a whole array of rows: memory stays that of the text
 * and one page, counting stops at the cap, and the reader hands the event loop back every
 * CHARS_PER_TURN characters so that redirects are served while an 8 MB file is read.
 */

/** One import takes at most this many rows (docs/importing.md, "Limits"); more is a 413 too_many_rows. */
export const CSV_MAX_ROWS = 10_000;
const PAGE_SIZE = 500;
/** About 5 ms of reading on a slow core; then a turn of the event loop. */
const CHARS_PER_TURN = 128 * 1024;

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The cells of the row starting at `start`, and where the next row starts. */
function readRow(csv: string, start: number): { cells: string[]; next: number } {
  const cells: string[] = [];
  const end = csv.length;
  let i = start;
  for (;;) {
    let cell = '';
    let from = i;
    // A quote opens a quoted part only at the start of a cell; elsewhere it is a character like any other.
    if (csv.charCodeAt(i) === QUOTE) {
      from = ++i;
      for (;;) {
        const quote = csv.indexOf('"', i);
        if (quote < 0) {
          // Never closed: the rest of the text is the cell, as a spreadsheet reads it.
          i = end;
          break;
        }
        if (csv.charCodeAt(quote + 1) === QUOTE) {
          cell += csv.slice(from, quote + 1);
          from = i = quote + 2;
          continue;
        }
        cell += csv.slice(from, quote);
        from = i = quote + 1;
        break;
      }
    }
    while (i < end) {
      const char = csv.charCodeAt(i);
      if (char === COMMA || char === LF || char === CR) break;
      i++;
    }
    cells.push(cell + csv.slice(from, i));
    if (i >= end) return { cells, next: end };
    if (csv.charCodeAt(i) === COMMA) {
      i++;
      continue;
    }
    return { cells, next: csv.charCodeAt(i) === CR && csv.charCodeAt(i + 1) === LF ? i + 2 : i + 1 };
  }
}

const isBlank = (cells: string[]) => cells.every((value) => value.trim() === '');

/**
 * Calls `onRow` with each row that is not blank, in order, until it returns false or the text ends;
 * yields to the event loop between stretches of CHARS_PER_TURN characters.
 */
export async function eachCsvRow(input: string, onRow: (cells: string[]) => boolean): Promise<void> {
  let position = input.charCodeAt(0) === 0xfeff ? 1 : 0;
  let turnAt = position + CHARS_PER_TURN;
  while (position < input.length) {
    const { cells, next } = readRow(input, position);
    position = next;
    if (!isBlank(cells) && !onRow(cells)) return;
    if (position >= turnAt) {
      turnAt = position + CHARS_PER_TURN;
      await turn();
    }
  }
}

export type CsvRead =
  | { kind: 'read'; items: SourceItem[]; rows: number }
  | { kind: 'problem'; problem: string }
  | { kind: 'too_many_rows'; max: number };

export const TOO_MANY_ROWS = (max: number) =>
  `The CSV has more than ${max.toLocaleString('en-US')} rows; split it into files of at most ${max.toLocaleString('en-US')} rows and import each`;

const HEADER_PROBLEM = 'The CSV needs a header row with a `url` column (and optionally slug, tags, title)';

/** Reads rows into items: the header's columns, and the identity a re-run recognises each row by. */
function rowReader(header: string[]) {
  const names = header.map((name) =>
    name
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  );
  const column = (name: string) => names.indexOf(name);
  const [url, slug, tags, title, created] = ['url', 'slug', 'tags', 'title', 'created_at'].map(column);
  const cell = (cells: string[], index: number | undefined) =>
    index === undefined || index < 0 ? '' : (cells[index] ?? '').trim();
  const seen = new Map<string, number>();
  return {
    hasUrl: url !== undefined && url >= 0,
    /** The row's key; every row goes through here, in order, so that repeated URLs count right. */
    keyOf(cells: string[]): string {
      const destination = cell(cells, url);
      const wanted = cell(cells, slug);
      if (wanted) return `slug:${wanted}`;
      // Without a slug the row is known by its URL; the same URL twice is two links, told apart by count.
      const occurrence = (seen.get(destination) ?? 0) + 1;
      seen.set(destination, occurrence);
      return `url:${destination}#${occurrence}`;
    },
    item(cells: string[], key: string, index: number): SourceItem {
      return {
        key,
        // Row numbers as a spreadsheet shows them: the header is row 1.
        label: `row ${index + 2}`,
        url: cell(cells, url),
        slug: cell(cells, slug) || null,
        host: null,
        tags: cell(cells, tags)
          .split(/[|,;]/)
          .map((tag) => tag.trim())
          .filter(Boolean),
        title: cell(cells, title) || null,
        createdAt: isoDate(cell(cells, created)),
        visits: null,
      };
    },
  };
}

/**
 * Counts the CSV's rows (stopping past `max`) and reads rows [from, from + count) into items. Refuses a
 * text without a `url` column, or with more than `max` rows, before anything else is done with it.
 */
export async function readCsv(
  input: string,
  window: { from?: number; count?: number; max?: number; countAll?: boolean } = {},
): Promise<CsvRead> {
  const from = window.from ?? 0;
  const until = from + (window.count ?? Number.POSITIVE_INFINITY);
  const max = window.max ?? CSV_MAX_ROWS;
  let reader: ReturnType<typeof rowReader> | null = null;
  const items: SourceItem[] = [];
  let rows = 0;
  await eachCsvRow(input, (cells) => {
    if (reader === null) {
      reader = rowReader(cells);
      return reader.hasUrl;
    }
    const index = rows++;
    // Past the window, one more row says whether more follow: enough when the total is not needed.
    if (rows > max || (window.countAll === false && index > until)) return false;
    const key = reader.keyOf(cells);
    if (index >= from && index < until) items.push(reader.item(cells, key, index));
    return true;
  });
  if (reader === null || !(reader as ReturnType<typeof rowReader>).hasUrl)
    return { kind: 'problem', problem: HEADER_PROBLEM };
  if (rows > max) return { kind: 'too_many_rows', max };
  return { kind: 'read', items, rows };
}

/**
 * Pages of PAGE_SIZE rows. Each page reads the text from the start to just past its rows (a row's key
 * depends on the rows before it); the first counts every row, for the total.
 */
export function openCsv(params: { csv: string }): ImportSource {
  return {
    async fetchPage(cursor) {
      const start = Number(cursor ?? '0');
      const read = await readCsv(params.csv, { from: start, count: PAGE_SIZE, countAll: cursor === null });
      if (read.kind === 'problem') throw new SourceError(read.problem);
      if (read.kind === 'too_many_rows') throw new SourceError(TOO_MANY_ROWS(read.max));
      const end = start + PAGE_SIZE;
      const total = cursor === null ? read.rows : null;
      return { items: read.items, next: end < read.rows ? String(end) : null, total };
    },
  };
}
