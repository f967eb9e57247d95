import type { OrgContext } from '../accounts/service.js';
import { createPollingLoop } from '../jobs/polling-loop.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import type { LinkWriter } from './link-writer.js';
import type { ImportRepo, ImportRow } from './repo.js';
import { type CreateImportInput, createImportBody, type ImportSourceName } from './schema.js';
import { openSource, SOURCE_NAMES, SourceError, type SourceHttpDeps } from './sources/index.js';

/**
 * Runs imports off the request path. Any instance may run a worker: an import is claimed by one at a time
 * (a lease in its row), its cursor and counts are saved after every page, and a lease that runs out (the
 * instance died) lets the next worker resume at the saved cursor. Items already imported are recognised
 * by their source id, so a resumed page imports nothing twice.
 */

export interface ImportWorkerLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface ImportWorkerDeps {
  repo: ImportRepo;
  writer: LinkWriter;
  /** The organization's plan as it is now (it may change during a long import). */
  orgContext: (orgId: string) => Promise<OrgContext>;
  secretBox: SecretBox;
  /** The outbound side of the sources: the SSRF-guarded fetcher and the sleep Retry-After waits with. */
  http: SourceHttpDeps;
  now: () => Date;
  uuid: () => string;
  logger: ImportWorkerLogger;
  intervalMs?: number;
  leaseMs?: number;
}

/** Called after each saved page (the CLI's progress bar). */
export type OnProgress = (row: ImportRow) => void;

const DEFAULT_INTERVAL_MS = 5_000;
/** Longer than a page takes; every page and every wait renews it. */
export const IMPORT_LEASE_MS = 5 * 60_000;

/** Thrown out of a wait when the worker stops: the import is handed back, not failed. */
class Stopping extends Error {}

export function createImportWorker(deps: ImportWorkerDeps) {
  const { repo } = deps;
  const leaseMs = deps.leaseMs ?? IMPORT_LEASE_MS;
  const iso = (offsetMs = 0) => new Date(deps.now().getTime() + offsetMs).toISOString();
  let stopping = new AbortController();

  /** The source's wait, cut short by stop() so a shutdown never sits out a Retry-After. */
  async function wait(ms: number): Promise<void> {
    const { signal } = stopping;
    if (signal.aborted) throw new Stopping();
    await Promise.race([
      deps.http.sleep(ms),
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(new Stopping()), { once: true }),
      ),
    ]);
  }

  function readParams(row: ImportRow): CreateImportInput | null {
    try {
      return createImportBody.parse(JSON.parse(deps.secretBox.decrypt(row.params ?? '', row.id)));
    } catch {
      return null;
    }
  }

  const fail = (row: ImportRow, token: string, reason: string, total: number) =>
    repo.finish(row.id, token, {
      status: 'failed',
      total,
      errors: [{ item: `${SOURCE_NAMES[row.source as ImportSourceName]} API`, reason }],
      now: iso(),
    });

  /** Runs an import this worker holds under `token` until it ends or the claim is lost. */
  async function run(claimed: ImportRow, token: string, onProgress?: OnProgress): Promise<void> {
    const params = readParams(claimed);
    if (!params) {
      await fail(claimed, token, 'The import’s parameters cannot be read (was SESSION_SECRET replaced?)', 0);
      return;
    }
    const source = openSource(params, {
      ...deps.http,
      // A long Retry-After must not let the claim run out under us.
      sleep: async (ms) => {
        await repo.renewClaim(claimed.id, token, iso(ms + leaseMs));
        await wait(ms);
      },
    });
    const job = { id: claimed.id, orgId: claimed.org_id, source: params.source };
    let cursor = claimed.cursor;
    let counted = claimed.imported + claimed.skipped + claimed.failed;
    let total = claimed.total;
    for (;;) {
      let page: Awaited<ReturnType<typeof source.fetchPage>>;
      if (stopping.signal.aborted) throw new Stopping();
      try {
        page = await source.fetchPage(cursor);
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        await fail(claimed, token, error.message, Math.max(total, counted));
        return;
      }
      const outcome = await deps.writer.writePage(await deps.orgContext(job.orgId), job, page.items);
      counted += page.items.length;
      total = Math.max(page.total ?? total, counted);
      const saved = await repo.saveProgress(claimed.id, token, {
        ...outcome,
        cursor: page.next,
        total,
        claimedUntil: iso(leaseMs),
        now: iso(),
      });
      if (!saved) {
        deps.logger.warn({ importId: claimed.id }, 'import claim lost; another worker continues it');
        return;
      }
      if (page.next === null)
        await repo.finish(claimed.id, token, { status: 'done', errors: [], now: iso() });
      const row = await repo.findById(claimed.id);
      if (row) onProgress?.(row);
      if (page.next === null) return;
      cursor = page.next;
    }
  }

  /** Claims the oldest runnable import and runs it; 1 when there was one. */
  async function pass(): Promise<number> {
    const token = deps.uuid();
    const claimed = await repo.claim(token, iso(), iso(leaseMs));
    if (!claimed) return 0;
    try {
      await run(claimed, token);
    } catch (error) {
      if (error instanceof Stopping) {
        // Shutting down: handed back at once, so another instance resumes it from the last saved page.
        await repo.releaseClaim(claimed.id, token).catch(() => undefined);
        return 0;
      }
      // The store or a bug: the claim runs out and a later pass resumes from the last saved page.
      deps.logger.error({ err: error, importId: claimed.id }, 'import interrupted');
    }
    return 1;
  }

  const loop = createPollingLoop({
    pass,
    batchSize: 1,
    intervalMs: deps.intervalMs ?? DEFAULT_INTERVAL_MS,
    onError: (error) => deps.logger.error({ err: error }, 'import pass failed'),
  });

  return {
    start(): void {
      stopping = new AbortController();
      loop.start();
    },
    nudge: loop.nudge,
    drain: loop.drain,
    async stop(): Promise<void> {
      stopping.abort();
      await loop.stop();
    },
    run,
    /** Hands an import held under `token` back (the CLI interrupted): any worker may resume it now. */
    release: (id: string, token: string) => repo.releaseClaim(id, token),
  };
}

export type ImportWorker = ReturnType<typeof createImportWorker>;
