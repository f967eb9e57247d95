import { appendFileSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { OutcomeRow } from '../model.js';
import type { BufferLogger } from './click-buffer.js';
import { processAlive } from './click-spill.js';

/**
 * Tap outcomes the store refused (the token already redeemed, so the beacon cannot be asked again): held
 * in memory, past `maxHeld` appended to `outcomes-<pid>.jsonl` in the spill folder, and inserted again
 * every `retryMs` until the store takes them. An outcome's tap id is its primary key and the insert does
 * nothing on a conflict, so a retry, or a replay of a file after a crash, never counts one twice.
 */

export interface OutcomeQueueOptions {
  insert: (row: OutcomeRow) => Promise<unknown>;
  logger: BufferLogger;
  /** The spill folder (shared with the click spill); unset: past `maxHeld` the oldest are dropped. */
  dir?: string;
  maxHeld?: number;
  retryMs?: number;
}

const FILE = /^outcomes-(\d+)\.jsonl$/;

export function createOutcomeQueue(options: OutcomeQueueOptions) {
  const maxHeld = options.maxHeld ?? 10_000;
  const { logger, dir } = options;
  const own = dir ? join(dir, `outcomes-${process.pid}.jsonl`) : null;
  let held: OutcomeRow[] = [];
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  /** Our file and those of processes that are gone (a crash left them). */
  function files(): string[] {
    if (!dir) return [];
    try {
      return readdirSync(dir)
        .filter((name) => {
          const match = FILE.exec(name);
          return match !== null && (Number(match[1]) === process.pid || !processAlive(Number(match[1])));
        })
        .map((name) => join(dir, name));
    } catch {
      return [];
    }
  }

  async function retryAll(): Promise<void> {
    for (const file of files()) {
      // Taken whole: rows appended meanwhile land in a new file, read next time.
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
        unlinkSync(file);
      } catch {
        continue;
      }
      const rows = text
        .split('\n')
        .filter(Boolean)
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as OutcomeRow];
          } catch {
            return [];
          }
        });
      held = rows.concat(held);
    }
    while (held.length > 0) {
      const row = held[0] as OutcomeRow;
      try {
        await options.insert(row);
      } catch {
        // Still away: the rest wait for the next retry; over the bound they go to disk.
        overflow();
        return;
      }
      held.shift();
    }
  }

  function overflow(): void {
    if (held.length <= maxHeld) return;
    const rows = held.slice(0, held.length - maxHeld);
    held = held.slice(rows.length);
    if (own && dir) {
      try {
        mkdirSync(dir, { recursive: true });
        appendFileSync(own, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
        return;
      } catch (error) {
        logger.error({ err: error }, 'outcome spill refused');
      }
    }
    dropped += rows.length;
    logger.warn({ dropped }, 'outcome queue full: oldest outcomes dropped');
  }

  function run(): Promise<void> {
    running ??= retryAll().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    /** Keeps an outcome the store refused; written by a later retry. */
    hold(row: OutcomeRow): void {
      held.push(row);
      overflow();
    },
    start(): void {
      if (timer) return;
      timer = setInterval(() => void run(), options.retryMs ?? 1000);
      timer.unref();
      void run();
    },
    /** One retry now (tests, shutdown). */
    retry: run,
    /** Stops retrying; what is still held goes to the file for the next start. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await run();
      const max = maxHeld;
      if (held.length > 0 && own) {
        // Everything to disk: overflow with a zero bound.
        const keep = held;
        held = [];
        try {
          mkdirSync(dir as string, { recursive: true });
          appendFileSync(own, `${keep.map((row) => JSON.stringify(row)).join('\n')}\n`);
        } catch (error) {
          logger.error({ err: error, lost: keep.length, max }, 'outcomes not kept at shutdown');
        }
      } else if (held.length > 0) {
        logger.error({ lost: held.length }, 'outcomes not written at shutdown');
      }
    },
    stats() {
      return { held: held.length, dropped };
    },
  };
}

export type OutcomeQueue = ReturnType<typeof createOutcomeQueue>;
