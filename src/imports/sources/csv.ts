import type { SourceItem } from '../schema.js';
import { type ImportSource, isoDate } from './items.js';

/**
 * The CSV source: a header row naming the columns `url, slug, tags, title` (any order, any case; only
 * `url` is required; `created_at` is read too when present), then one link a row. RFC 4180: fields may be
 * quoted, quotes doubled inside, line breaks inside quotes kept. Tags in one cell are separated by `|`,
 * `,` or `;`.
 */

const PAGE_SIZE = 500;

/** Rows of cells; a trailing empty line is no row. */
export function parseCsv(input: string): string[][] {
  const csv = input.replace(/^\uFEFF/, '');
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const char = csv[i];
    if (quoted) {
      if (char === '"' && csv[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && csv[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((value) => value.trim() !== ''));
}

export type CsvRead = { items: SourceItem[] } | { problem: string };

/** The CSV as items, or the one problem that makes it unreadable (no `url` column). */
export function readCsv(input: string): CsvRead {
  const [header, ...rows] = parseCsv(input);
  const names = (header ?? []).map((name) =>
    name
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  );
  const column = (name: string) => names.indexOf(name);
  const url = column('url');
  if (url < 0) {
    return { problem: 'The CSV needs a header row with a `url` column (and optionally slug, tags, title)' };
  }
  const [slug, tags, title, created] = ['slug', 'tags', 'title', 'created_at'].map(column);
  const cell = (cells: string[], index: number | undefined) =>
    index === undefined || index < 0 ? '' : (cells[index] ?? '').trim();
  const seen = new Map<string, number>();
  const items = rows.map((cells, index): SourceItem => {
    const destination = cell(cells, url);
    const wanted = cell(cells, slug);
    // Without a slug the row is known by its URL; the same URL twice is two links, told apart by count.
    const occurrence = (seen.get(destination) ?? 0) + 1;
    if (!wanted) seen.set(destination, occurrence);
    return {
      key: wanted ? `slug:${wanted}` : `url:${destination}#${occurrence}`,
      // Row numbers as a spreadsheet shows them: the header is row 1.
      label: `row ${index + 2}`,
      url: destination,
      slug: wanted || null,
      host: null,
      tags: cell(cells, tags)
        .split(/[|,;]/)
        .map((tag) => tag.trim())
        .filter(Boolean),
      title: cell(cells, title) || null,
      createdAt: isoDate(cell(cells, created)),
      visits: null,
    };
  });
  return { items };
}

export function openCsv(params: { csv: string }): ImportSource {
  const read = readCsv(params.csv);
  const items = 'items' in read ? read.items : [];
  return {
    async fetchPage(cursor) {
      const start = Number(cursor ?? '0');
      const end = start + PAGE_SIZE;
      return {
        items: items.slice(start, end),
        next: end < items.length ? String(end) : null,
        total: items.length,
      };
    },
  };
}
