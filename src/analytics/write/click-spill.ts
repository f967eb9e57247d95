import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ClickInput } from './click-input.js';

/**
 * Clicks the database could not take, on local disk: append-only segment files of one JSON click per
 * line. The click buffer appends to the open segment while the store fails and replays sealed segments,
 * oldest first, once it is back, each in one transaction under the segment's id (recorded in
 * `click_batches`), so a segment replayed again after a crash is not counted twice; its file is deleted
 * after the commit.
 *
 * Files: `<id>.open` (being appended to by the process whose pid is in the id) and `<id>.<clicks>.seg`
 * (sealed, replayable). One folder per instance is best; instances sharing one still write each segment
 * once (the id), and a process only seals the open segments of writers that are gone.
 */

export interface SpilledSegment {
  /** The segment's batch id: what `click_batches` records. */
  id: string;
  clicks: ClickInput[];
  /** Lines that could not be read back (a process killed mid-append leaves at most one). */
  unreadable: number;
}

export interface ClickSpillStats {
  /** Clicks on disk, waiting for the database. */
  clicks: number;
  bytes: number;
  segments: number;
}

export interface ClickSpillOptions {
  dir: string;
  /** Clicks per segment before the open one is sealed and another begins (default 10,000). */
  segmentClicks?: number;
}

const SEALED = /^([A-Za-z0-9:_-]{1,64})\.(\d+)\.seg$/;
const OPEN = /^(s-\d+-(\d+)-[0-9a-f]+)\.open$/;

export function createClickSpill(options: ClickSpillOptions) {
  const { dir } = options;
  const segmentClicks = options.segmentClicks ?? 10_000;
  let open: { id: string; clicks: number; bytes: number } | null = null;
  let sealed = new Map<string, { file: string; clicks: number; bytes: number }>();
  let ready = false;

  /** Lazily: a process that never spills never creates the folder. */
  function prepare(): void {
    if (ready) return;
    mkdirSync(dir, { recursive: true });
    ready = true;
  }

  function path(file: string): string {
    return join(dir, file);
  }

  function seal(): void {
    if (!open) return;
    const file = `${open.id}.${open.clicks}.seg`;
    renameSync(path(`${open.id}.open`), path(file));
    sealed.set(open.id, { file, clicks: open.clicks, bytes: open.bytes });
    open = null;
  }

  /** Segments left by an earlier run: sealed ones as they are, open ones of writers no longer alive. */
  function scan(): void {
    let files: string[];
    try {
      files = readdirSync(dir);
    } catch {
      return;
    }
    ready = true;
    const found = new Map<string, { file: string; clicks: number; bytes: number }>();
    for (const file of files) {
      const open = OPEN.exec(file);
      if (open?.[1] && open[2] && (Number(open[2]) === process.pid || !processAlive(Number(open[2])))) {
        const lines = countLines(readFileSync(path(file), 'utf8'));
        const target = `${open[1]}.${lines}.seg`;
        renameSync(path(file), path(target));
        found.set(open[1], { file: target, clicks: lines, bytes: statSync(path(target)).size });
        continue;
      }
      const match = SEALED.exec(file);
      if (match?.[1])
        found.set(match[1], { file, clicks: Number(match[2]), bytes: statSync(path(file)).size });
    }
    sealed = new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  try {
    scan();
  } catch {
    // A folder we cannot tidy is still one we can append to; what it held waits for a later start.
  }

  return {
    /** Appends clicks to the open segment (synchronous; throws when the disk refuses). */
    append(clicks: readonly ClickInput[]): void {
      if (clicks.length === 0) return;
      prepare();
      for (let start = 0; start < clicks.length; ) {
        open ??= {
          id: `s-${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}`,
          clicks: 0,
          bytes: 0,
        };
        const take = clicks.slice(start, start + segmentClicks - open.clicks);
        const text = `${take.map((click) => JSON.stringify(click)).join('\n')}\n`;
        appendFileSync(path(`${open.id}.open`), text);
        open.clicks += take.length;
        open.bytes += Buffer.byteLength(text);
        start += take.length;
        if (open.clicks >= segmentClicks) seal();
      }
    },

    /**
     * A batch that already has an id (one whose write failed, perhaps after its commit) as a sealed segment
     * of its own, so that its replay keeps that id. Written to a temporary name, synced, then renamed.
     */
    writeBatch(id: string, clicks: readonly ClickInput[]): void {
      if (clicks.length === 0) return;
      prepare();
      const file = `${id}.${clicks.length}.seg`;
      const text = `${clicks.map((click) => JSON.stringify(click)).join('\n')}\n`;
      const fd = openSync(path(`${file}.tmp`), 'w');
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(path(`${file}.tmp`), path(file));
      sealed.set(id, { file, clicks: clicks.length, bytes: Buffer.byteLength(text) });
    },

    /** The oldest segment to replay (sealing the open one when nothing else waits), or null. */
    next(): SpilledSegment | null {
      if (sealed.size === 0) seal();
      const first = sealed.entries().next();
      if (first.done) return null;
      const [id, { file }] = first.value;
      let text: string;
      try {
        text = readFileSync(path(file), 'utf8');
      } catch {
        // Gone: another instance sharing the folder replayed it.
        sealed.delete(id);
        return this.next();
      }
      const clicks: ClickInput[] = [];
      let unreadable = 0;
      for (const line of text.split('\n')) {
        if (line === '') continue;
        try {
          clicks.push(JSON.parse(line) as ClickInput);
        } catch {
          unreadable += 1;
        }
      }
      return { id, clicks, unreadable };
    },

    /** Seals the open segment (a clean shutdown), so that the next start replays it at once. */
    seal,

    /** Deletes a segment once its clicks are committed (or found committed before). */
    remove(id: string): void {
      const segment = sealed.get(id);
      if (!segment) return;
      sealed.delete(id);
      try {
        unlinkSync(path(segment.file));
      } catch {
        // Already gone (another instance sharing the folder).
      }
    },

    stats(): ClickSpillStats {
      let clicks = open?.clicks ?? 0;
      let bytes = open?.bytes ?? 0;
      for (const segment of sealed.values()) {
        clicks += segment.clicks;
        bytes += segment.bytes;
      }
      return { clicks, bytes, segments: sealed.size + (open ? 1 : 0) };
    },
  };
}

export type ClickSpill = ReturnType<typeof createClickSpill>;

function countLines(text: string): number {
  let lines = 0;
  for (const line of text.split('\n')) if (line !== '') lines += 1;
  return lines;
}

/** Whether a process of this pid runs. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
