import { readFileSync } from 'node:fs';

/**
 * Reads V8 heap snapshots (`.heapsnapshot`, as written by `--heapsnapshot-signal` or
 * `v8.writeHeapSnapshot`) into totals by object type, and compares two of them: what the soak reports as
 * "what grew, by how much". An object type is the constructor name for objects and native objects (what
 * DevTools' Summary view lists) and the node type otherwise: every string is "(string)", every closure
 * "(closure)", so a million distinct strings are one line, not a million.
 *
 * The file is not parsed as a whole: a serving process's snapshot runs to hundreds of MB and most of it is
 * the edges, which a by-type summary does not need. Only the header, the nodes and the strings are read.
 */

export interface TypeTotal {
  count: number;
  bytes: number;
}

export interface HeapSummary {
  nodes: number;
  bytes: number;
  byType: Map<string, TypeTotal>;
}

export interface TypeGrowth {
  type: string;
  countDelta: number;
  bytesDelta: number;
  /** Bytes growth over the bytes before, in percent; null when the type was not there before. */
  percent: number | null;
}

export interface HeapDiff {
  before: TypeTotal;
  after: TypeTotal;
  percent: number;
  /** Every type whose bytes or count changed, largest bytes growth first. */
  growth: TypeGrowth[];
}

interface Meta {
  node_fields: string[];
  node_types: [string[], ...unknown[]];
}

// Node types whose `name` is the constructor: grouped by it. Synthetic nodes are the snapshot's own roots.
const NAMED_TYPES = new Set(['object', 'native']);
const SKIPPED_TYPES = new Set(['synthetic']);
const TYPE_BITS = 64;

/** A snapshot file's totals by object type; throws on a file that is not a complete snapshot. */
export function summarizeSnapshotFile(path: string): HeapSummary {
  return summarizeSnapshot(readFileSync(path));
}

export function summarizeSnapshot(data: Buffer): HeapSummary {
  const nodesAt = sectionStart(data, '"nodes":[', 'indexOf');
  const edgesAt = sectionStart(data, '"edges":[', 'indexOf');
  const stringsAt = sectionStart(data, '"strings":[', 'lastIndexOf');
  const meta = readMeta(data, nodesAt);
  const totals = totalsByTypeAndName(data, nodesAt, edgesAt, meta);
  const strings = JSON.parse(
    `[${data.subarray(stringsAt, data.lastIndexOf(']')).toString('utf8')}]`,
  ) as string[];
  return resolveNames(totals, meta.node_types[0], strings);
}

/** The header `{"snapshot":{...},` up to the nodes, closed and parsed: what each node's fields mean. */
function readMeta(data: Buffer, nodesAt: number): Meta {
  const headerEnd = data.lastIndexOf('}', nodesAt) + 1;
  const header = JSON.parse(`${data.subarray(0, headerEnd).toString('utf8')}}`) as {
    snapshot: { meta: Meta };
  };
  return header.snapshot.meta;
}

/** Where the values of a top-level array section begin (just past its `[`). */
function sectionStart(data: Buffer, key: string, search: 'indexOf' | 'lastIndexOf'): number {
  // A key like `"strings":[` cannot occur inside a JSON string (its quotes would be escaped), and the other
  // sections hold only numbers, so the first (or, for strings, last) occurrence is the section.
  const at = data[search](key);
  if (at < 0) throw new Error(`not a complete heap snapshot: no ${key}`);
  return at + key.length;
}

/**
 * Sums count and self size per (type, name index) over the nodes section, scanning its digits directly:
 * the section is millions of numbers, and no array of them is ever built.
 */
function totalsByTypeAndName(data: Buffer, from: number, to: number, meta: Meta): Map<number, TypeTotal> {
  const fields = meta.node_fields.length;
  const typeField = meta.node_fields.indexOf('type');
  const nameField = meta.node_fields.indexOf('name');
  const sizeField = meta.node_fields.indexOf('self_size');
  const types = meta.node_types[0];
  const totals = new Map<number, TypeTotal>();
  let field = 0;
  let value = 0;
  let inNumber = false;
  let type = 0;
  let name = 0;
  let size = 0;
  for (let i = from; i < to; i++) {
    const byte = data[i] as number;
    if (byte >= 48 && byte <= 57) {
      value = value * 10 + (byte - 48);
      inNumber = true;
      continue;
    }
    if (!inNumber) continue;
    if (field === typeField) type = value;
    else if (field === nameField) name = value;
    else if (field === sizeField) size = value;
    inNumber = false;
    value = 0;
    field += 1;
    if (field < fields) continue;
    field = 0;
    const typeName = types[type] as string;
    if (SKIPPED_TYPES.has(typeName)) continue;
    const key = NAMED_TYPES.has(typeName) ? name * TYPE_BITS + type : type;
    const total = totals.get(key) ?? { count: 0, bytes: 0 };
    total.count += 1;
    total.bytes += size;
    totals.set(key, total);
  }
  return totals;
}

function resolveNames(totals: Map<number, TypeTotal>, types: string[], strings: string[]): HeapSummary {
  const byType = new Map<string, TypeTotal>();
  let nodes = 0;
  let bytes = 0;
  for (const [key, total] of totals) {
    const typeName = types[key % TYPE_BITS] as string;
    const label = NAMED_TYPES.has(typeName) ? (strings[Math.floor(key / TYPE_BITS)] ?? '?') : `(${typeName})`;
    const merged = byType.get(label) ?? { count: 0, bytes: 0 };
    merged.count += total.count;
    merged.bytes += total.bytes;
    byType.set(label, merged);
    nodes += total.count;
    bytes += total.bytes;
  }
  return { nodes, bytes, byType };
}

/** What grew (and shrank) from one snapshot to the next, by object type. */
export function diffHeaps(before: HeapSummary, after: HeapSummary): HeapDiff {
  const growth: TypeGrowth[] = [];
  for (const type of new Set([...before.byType.keys(), ...after.byType.keys()])) {
    const was = before.byType.get(type) ?? { count: 0, bytes: 0 };
    const now = after.byType.get(type) ?? { count: 0, bytes: 0 };
    if (was.count === now.count && was.bytes === now.bytes) continue;
    growth.push({
      type,
      countDelta: now.count - was.count,
      bytesDelta: now.bytes - was.bytes,
      percent: was.bytes > 0 ? round1(((now.bytes - was.bytes) / was.bytes) * 100) : null,
    });
  }
  growth.sort((a, b) => b.bytesDelta - a.bytesDelta || b.countDelta - a.countDelta);
  return {
    before: { count: before.nodes, bytes: before.bytes },
    after: { count: after.nodes, bytes: after.bytes },
    percent: round1(((after.bytes - before.bytes) / before.bytes) * 100),
    growth,
  };
}

/** The report's lines: the totals, then the `top` largest growths by bytes. */
export function formatHeapDiff(diff: HeapDiff, top = 15): string[] {
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(2);
  const signed = (n: number, text = String(n)) => (n >= 0 ? `+${text}` : text);
  const lines = [
    `heap ${mb(diff.before.bytes)} -> ${mb(diff.after.bytes)} MB (${signed(diff.percent)} %), ` +
      `objects ${diff.before.count} -> ${diff.after.count} (${signed(diff.after.count - diff.before.count)})`,
  ];
  const width = Math.min(48, Math.max(4, ...diff.growth.slice(0, top).map((g) => g.type.length)));
  for (const g of diff.growth.slice(0, top).filter((entry) => entry.bytesDelta > 0 || entry.countDelta > 0)) {
    const percent = g.percent === null ? 'new' : `${signed(g.percent)} %`;
    lines.push(
      `  ${g.type.slice(0, width).padEnd(width)} ${signed(g.countDelta).padStart(9)} objects ` +
        `${signed(g.bytesDelta).padStart(11)} bytes  ${percent}`,
    );
  }
  return lines;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
