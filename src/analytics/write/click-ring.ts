import { ESCAPE_STRATEGIES } from '../../core/escape/index.js';
import type { ClickInput } from './click-buffer.js';

/**
 * Clicks handed from the thread that serves redirects to the click writer thread through shared memory:
 * a single-producer, single-consumer ring of 32-bit words in a SharedArrayBuffer. Recording a click
 * writes twelve words and publishes them with one atomic store: no object is kept alive per visit, no
 * message is posted, nothing is cloned. Strings travel once: each distinct one gets a number, defined in
 * the ring before the first click that uses it (tap ids, unique per page, are sent inline instead).
 *
 * The ring never blocks the redirect: when the writer is so far behind that a click does not fit, the
 * click is dropped and counted. Either side may be rebuilt around the same buffer: a writer thread that
 * restarts gets the producer's dictionary (`dictionary()`), so the numbers in the ring stay meaningful.
 */

/** Control words at the front of the buffer, all counted modulo 2^32. */
const WRITE = 0;
const READ = 1;
const RECORDED = 2;
const RING_DROPPED = 3;
const CONSUMED = 4;
/** Set by the writer thread from its batch buffer: what it wrote, dropped and failed, and holds. */
export const WRITER_WRITTEN = 5;
export const WRITER_DROPPED = 6;
export const WRITER_FAILED = 7;
export const WRITER_PENDING = 8;
/** Clicks in the writer's spill files, and their bytes (capped at 2^32 - 1). */
export const WRITER_SPILLED = 9;
export const WRITER_SPILL_BYTES = 10;
const CONTROL_WORDS = 16;

const KIND_CLICK = 1;
const KIND_STRING = 2;
const KIND_TRANSIENT = 3;
const KIND_RESET = 4;

const CLICK_WORDS = 12;
/** The tapId field's marker for "the transient string just before this click". */
const TRANSIENT = 0xffffffff;
const DEVICES = ['ios', 'android', 'desktop', 'other'] as const;
const DEVICE_CODE: Record<string, number> = { ios: 0, android: 1, desktop: 2, other: 3 };
/** Variants are 0-based indexes of at most 4 A/B destinations; stored +1 so that 0 means none. */
const MAX_VARIANT = 30;
/** The escape page's strategy in bits 16-18 of the head word, +1 so that 0 means none (no page). */
const STRATEGY_CODE = new Map<string, number>(ESCAPE_STRATEGIES.map((strategy, i) => [strategy, i + 1]));
/** Head word bit of a visit to an expired link (issue #20). */
const EXPIRED_BIT = 1 << 20;
/** Head word bit of a visit through the link's QR code (source `qr`). */
const QR_BIT = 1 << 21;

/** Past this many distinct strings the dictionary starts over (cities and referrers are open-ended). */
export const MAX_DICTIONARY = 50_000;

export interface ClickRingCounters {
  recorded: number;
  ringDropped: number;
  consumed: number;
  writerWritten: number;
  writerDropped: number;
  writerFailed: number;
  writerPending: number;
  writerSpilled: number;
  writerSpillBytes: number;
}

/** A ring of `words` 32-bit words (a power of two) in a fresh SharedArrayBuffer. */
export function createClickRingBuffer(words: number): SharedArrayBuffer {
  if (!Number.isInteger(Math.log2(words)) || words < 64)
    throw new RangeError('words must be a power of two ≥ 64');
  return new SharedArrayBuffer((CONTROL_WORDS + words) * 4);
}

function views(buffer: SharedArrayBuffer) {
  const control = new Uint32Array(buffer, 0, CONTROL_WORDS);
  const data = new Uint32Array(buffer, CONTROL_WORDS * 4);
  return { control, data, mask: data.length - 1 };
}

export function readCounters(buffer: SharedArrayBuffer): ClickRingCounters {
  const { control } = views(buffer);
  const at = (index: number) => Atomics.load(control, index);
  return {
    recorded: at(RECORDED),
    ringDropped: at(RING_DROPPED),
    consumed: at(CONSUMED),
    writerWritten: at(WRITER_WRITTEN),
    writerDropped: at(WRITER_DROPPED),
    writerFailed: at(WRITER_FAILED),
    writerPending: at(WRITER_PENDING),
    writerSpilled: at(WRITER_SPILLED),
    writerSpillBytes: at(WRITER_SPILL_BYTES),
  };
}

const NO_DEFINITIONS: { bytes: Buffer; words: number }[] = [];

function utf8Words(text: string): { bytes: Buffer; words: number } {
  const bytes = Buffer.from(text, 'utf8');
  return { bytes, words: Math.ceil(bytes.length / 4) };
}

export interface ClickRingWriterOptions {
  /**
   * Defers publishing: `record` then only writes the click's words, and the first click after a publish
   * asks `schedule` to call `publish` later (the running server: once per event-loop turn, however many
   * redirects that turn served). Without it every click is published as it is recorded.
   */
  schedule?: (publish: () => void) => void;
}

/** The producer side, on the thread that serves redirects. */
export function createClickRingWriter(buffer: SharedArrayBuffer, options: ClickRingWriterOptions = {}) {
  const { control, data, mask } = views(buffer);
  const capacity = data.length;
  const ids = new Map<string, number>();
  let nextId = 1;
  // Reused per click: the strings this click defines, in order.
  const fresh: string[] = [];

  let position = Atomics.load(control, WRITE);
  // Clicks written but not yet visible to the reader. Publishing is an atomic store and an atomic add,
  // each a full memory fence on x86 that waits for the click's cache lines: paid once per turn of the
  // event loop rather than once per redirect when a scheduler is given.
  let unpublished = 0;
  let scheduled = false;
  const { schedule } = options;
  function publish(): void {
    scheduled = false;
    if (unpublished === 0) return;
    Atomics.store(control, WRITE, position);
    Atomics.add(control, RECORDED, unpublished);
    unpublished = 0;
  }
  const put = (value: number) => {
    data[position & mask] = value;
    position = (position + 1) >>> 0;
  };
  const putBytes = (bytes: Buffer) => {
    put(bytes.length);
    for (let i = 0; i < bytes.length; i += 4) {
      put(
        ((bytes[i] ?? 0) |
          ((bytes[i + 1] ?? 0) << 8) |
          ((bytes[i + 2] ?? 0) << 16) |
          ((bytes[i + 3] ?? 0) << 24)) >>>
          0,
      );
    }
  };

  /** The number of `text`, or the one it gets when this click's definitions are written. */
  function idOf(text: string | null): number {
    if (text === null) return 0;
    const known = ids.get(text);
    if (known !== undefined) return known;
    const index = fresh.indexOf(text);
    if (index !== -1) return nextId + index;
    fresh.push(text);
    return nextId + fresh.length - 1;
  }

  // Reused per click: its eight string fields as numbers, in the record's order.
  const values = new Uint32Array(8);
  function numberFields(click: ClickInput): void {
    values[0] = idOf(click.linkId);
    values[1] = idOf(click.orgId);
    values[2] = idOf(click.routed);
    values[3] = idOf(click.country);
    values[4] = idOf(click.city);
    values[5] = idOf(click.sourceApp);
    values[6] = idOf(click.referrerHost);
    values[7] = idOf(click.platformKey);
  }

  function drop(): false {
    Atomics.add(control, RING_DROPPED, 1);
    return false;
  }

  return {
    /** Writes one click; false when it was dropped (the ring is full). Never throws on a valid click. */
    record(click: ClickInput): boolean {
      if (fresh.length !== 0) fresh.length = 0;
      let reset = false;
      numberFields(click);
      if (ids.size + fresh.length > MAX_DICTIONARY) {
        reset = true;
        ids.clear();
        nextId = 1;
        fresh.length = 0;
        numberFields(click);
      }
      // Nearly every click uses only strings already numbered: nothing to encode, nothing allocated.
      const definitions = fresh.length === 0 ? NO_DEFINITIONS : fresh.map(utf8Words);
      const tap = click.tapId === null ? null : utf8Words(click.tapId);
      let size = CLICK_WORDS + (reset ? 1 : 0) + (tap ? 2 + tap.words : 0);
      for (const definition of definitions) size += 3 + definition.words;
      const used = (position - Atomics.load(control, READ)) >>> 0;
      // Dropped after a dictionary reset, the reader keeps its old numbers: harmless, since every number
      // is defined again in the ring before a later click uses it.
      if (size > capacity - used) return drop();

      if (reset) put(KIND_RESET);
      for (let i = 0; i < fresh.length; i++) {
        const text = fresh[i] as string;
        const id = nextId + i;
        put(KIND_STRING);
        put(id);
        putBytes((definitions[i] as { bytes: Buffer }).bytes);
        ids.set(text, id);
      }
      nextId += fresh.length;
      if (tap) {
        put(KIND_TRANSIENT);
        putBytes(tap.bytes);
      }
      const variant = click.variant === null ? 0 : Math.min(click.variant, MAX_VARIANT) + 1;
      const strategy = click.strategy ? (STRATEGY_CODE.get(click.strategy) ?? 0) : 0;
      put(
        (KIND_CLICK |
          ((click.bot ? 1 : 0) << 8) |
          ((DEVICE_CODE[click.device] ?? 3) << 9) |
          (variant << 11) |
          (strategy << 16) |
          (click.expired ? EXPIRED_BIT : 0) |
          (click.source === 'qr' ? QR_BIT : 0)) >>>
          0,
      );
      put(Math.floor(click.at / 0x1_0000_0000));
      put(click.at >>> 0);
      for (const value of values) put(value);
      put(tap ? TRANSIENT : 0);
      unpublished += 1;
      if (!schedule) publish();
      else if (!scheduled) {
        scheduled = true;
        schedule(publish);
      }
      return true;
    },

    /** Makes every click recorded so far visible to the reader (before a flush, a stop, or counting). */
    publish,

    /** Every string numbered so far, for a writer thread that starts over on this ring. */
    dictionary(): [number, string][] {
      return [...ids].map(([text, id]) => [id, text]);
    },
  };
}

/** The consumer side, on the click writer thread. */
export function createClickRingReader(buffer: SharedArrayBuffer, dictionary: [number, string][] = []) {
  const { control, data, mask } = views(buffer);
  // Numbers are dense from 1 (the writer counts up, and starts over at 1 after a reset): an array, not a
  // map, so a click's eight strings cost eight indexed loads.
  const strings: (string | undefined)[] = [];
  for (const [id, text] of dictionary) strings[id] = text;
  let transient: string | null = null;

  function text(id: number, field: string): string {
    const value = strings[id];
    if (value === undefined) throw new Error(`click ring: string ${id} of ${field} was never defined`);
    return value;
  }
  const optional = (id: number, field: string) => (id === 0 ? null : text(id, field));

  return {
    /** Hands every click published so far to `onClick`, in order, and frees their space. */
    drain(onClick: (click: ClickInput) => void): number {
      const end = Atomics.load(control, WRITE);
      let position = Atomics.load(control, READ);
      let clicks = 0;
      const take = () => {
        const value = data[position & mask] as number;
        position = (position + 1) >>> 0;
        return value;
      };
      const takeString = () => {
        const length = take();
        const bytes = Buffer.allocUnsafe(length);
        for (let i = 0; i < length; i += 4) {
          const word = take();
          for (let b = 0; b < 4 && i + b < length; b++) bytes[i + b] = (word >>> (8 * b)) & 0xff;
        }
        return bytes.toString('utf8');
      };
      while (position !== end) {
        const head = take();
        const kind = head & 0xff;
        if (kind === KIND_RESET) {
          strings.length = 0;
        } else if (kind === KIND_STRING) {
          const id = take();
          strings[id] = takeString();
        } else if (kind === KIND_TRANSIENT) {
          transient = takeString();
        } else if (kind === KIND_CLICK) {
          const high = take();
          const low = take();
          const variant = (head >>> 11) & 0x1f;
          const strategy = (head >>> 16) & 0x7;
          // The literal reads the words in their ring order: link, org, routed, country, city, source app,
          // referrer, platform, tap.
          onClick({
            linkId: text(take(), 'linkId'),
            orgId: text(take(), 'orgId'),
            at: high * 0x1_0000_0000 + low,
            bot: ((head >>> 8) & 1) === 1,
            variant: variant === 0 ? null : variant - 1,
            routed: optional(take(), 'routed'),
            country: optional(take(), 'country'),
            city: optional(take(), 'city'),
            device: DEVICES[(head >>> 9) & 3] as ClickInput['device'],
            sourceApp: optional(take(), 'sourceApp'),
            referrerHost: optional(take(), 'referrerHost'),
            platformKey: optional(take(), 'platformKey'),
            tapId: take() === TRANSIENT ? transient : null,
            strategy: strategy === 0 ? null : (ESCAPE_STRATEGIES[strategy - 1] ?? null),
            ...((head & EXPIRED_BIT) !== 0 ? { expired: true } : {}),
            ...((head & QR_BIT) !== 0 ? { source: 'qr' as const } : {}),
          });
          clicks += 1;
        } else {
          throw new Error(`click ring: unknown record kind ${kind}`);
        }
      }
      Atomics.store(control, READ, position);
      Atomics.add(control, CONSUMED, clicks);
      return clicks;
    },

    /** Publishes the batch buffer's figures for the thread that serves redirects to read. */
    report(stats: {
      written: number;
      dropped: number;
      failedFlushes: number;
      pending: number;
      spilled?: number;
      spillBytes?: number;
    }): void {
      Atomics.store(control, WRITER_SPILLED, stats.spilled ?? 0);
      Atomics.store(control, WRITER_SPILL_BYTES, Math.min(stats.spillBytes ?? 0, 0xffffffff));
      Atomics.store(control, WRITER_WRITTEN, stats.written);
      Atomics.store(control, WRITER_DROPPED, stats.dropped);
      Atomics.store(control, WRITER_FAILED, stats.failedFlushes);
      Atomics.store(control, WRITER_PENDING, stats.pending);
    },
  };
}
