import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/database.js';
import type { ClickInput } from './click-buffer.js';
import { createAnalyticsRepo } from './repo.js';
import { createTimeOrderedIds } from './rollups.js';

/**
 * The click writer's own thread (SQLite): its own connection to the same file, so a batch's inserts,
 * rollup upserts and commit run beside the event loop that serves redirects instead of on it. It
 * receives `{seq, clicks}` and answers `{seq, error?}`; `{close: true}` closes the connection.
 */

interface Job {
  seq?: number;
  clicks?: ClickInput[];
  close?: boolean;
}

const port = parentPort;
if (port) {
  const store = openStore(String((workerData as { url: string }).url));
  const repo = createAnalyticsRepo(store);
  // One sequence for every batch of this thread: clicks keep their recording order within a millisecond.
  const id = createTimeOrderedIds();
  // Jobs run one at a time, in arrival order, like the in-process writer.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (job: Job) => {
    queue = queue.then(async () => {
      if (job.close) {
        await store.close();
        port.postMessage({ closed: true });
        return;
      }
      try {
        await repo.writeClicks(job.clicks ?? [], id);
        port.postMessage({ seq: job.seq });
      } catch (error) {
        port.postMessage({ seq: job.seq, error: error instanceof Error ? error.message : String(error) });
      }
    });
  });
}
