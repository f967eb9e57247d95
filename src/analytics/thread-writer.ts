import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ClickInput } from './click-buffer.js';

/**
 * The main thread's side of the SQLite click writer thread (writer-thread.ts): `write` hands a batch over
 * and resolves when the thread has committed it, or rejects so the buffer keeps the rows and retries.
 * Ids are made in the thread, in batch order. A thread that dies takes its in-flight batch's promise with
 * it (rejected, so nothing is lost), and the next write starts a new one.
 */

export interface ThreadWriter {
  write(clicks: readonly ClickInput[]): Promise<void>;
  close(): Promise<void>;
}

const BUILT_THREAD = new URL('./writer-thread.js', import.meta.url);

/** The compiled thread script, or null when running from the TypeScript sources (tests). */
export function writerThreadFile(): URL | null {
  return existsSync(fileURLToPath(BUILT_THREAD)) ? BUILT_THREAD : null;
}

export function createThreadWriter(databaseUrl: string, file: URL): ThreadWriter {
  let worker: Worker | null = null;
  let seq = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  function failAll(error: Error): void {
    for (const job of waiting.values()) job.reject(error);
    waiting.clear();
  }

  function thread(): Worker {
    if (worker) return worker;
    const started = new Worker(file, { workerData: { url: databaseUrl } });
    started.on('message', (message: { seq?: number; error?: string }) => {
      if (message.seq === undefined) return;
      const job = waiting.get(message.seq);
      waiting.delete(message.seq);
      if (waiting.size === 0) started.unref();
      if (message.error === undefined) job?.resolve();
      else job?.reject(new Error(message.error));
    });
    started.on('error', (error) => failAll(error));
    started.on('exit', (code) => {
      if (worker === started) worker = null;
      failAll(new Error(`click writer thread exited (${code})`));
    });
    worker = started;
    return started;
  }

  return {
    write(clicks) {
      const current = thread();
      const id = ++seq;
      // Referenced while a batch is in flight (a shutdown's last flush must not be cut short), idle
      // otherwise, so an idle thread never keeps the process alive on its own.
      current.ref();
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        current.postMessage({ seq: id, clicks });
      });
    },
    async close() {
      const current = worker;
      if (!current) return;
      worker = null;
      await new Promise<void>((resolve) => {
        current.once('message', () => resolve());
        current.once('exit', () => resolve());
        current.postMessage({ close: true });
      });
      await current.terminate();
    },
  };
}
