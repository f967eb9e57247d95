import { createPollingLoop } from '../jobs/polling-loop.js';
import type { OrgContext } from '../tenancy/context.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import type { LinkWriter } from './link-writer.js';
import { openParams } from './params.js';
import type { ImportRepo, ImportRow } from './repo.js';
import type { ImportSourceName } from './schema.js';
import {
  openSource,
  SOURCE_NAMES,
  SourceBusy,
  SourceError,
  type SourceHttpDeps,
  type SourcePage,
} from './sources/index.js';

/**
 * Runs imports off the request path. Any instance may run a worker: an import is claimed by one at a time
 * (a lease in its row), its cursor and counts are saved after every page, and a lease that runs out (the
 * instance died) lets the next worker resume at the saved cursor. Items already imported are recognised
 * by their source id, so a resumed page imports nothing twice.
 *
 * Fair and bounded (issue 30): a worker runs an import for a slice (SLICE_MS, whole pages), then hands it
 * back and claims the import of the organization served longest ago (repo.claim), so one tenant's big
 * import never keeps another's small one waiting for more than a slice. A source that asks us to come back
 * in more than a few seconds (Retry-After) gets its import handed back until then. Every import has a
 * total deadline from its first claim; past it, or on any answer of the source that cannot be read, the
 * import fails with the reason and its sealed credentials are erased.
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
  /** How long an import may run from its first claim (IMPORT_DEADLINE_MS). */
  deadlineMs?: number;
  /** How long a worker runs one import before serving the next organization (SLICE_MS). */
  sliceMs?: number;
}

export interface RunOptions {
  /**
   * The worker's loop: hand the import back after this long, and when the source says to come back
   * later. Without it (the CLI, which runs its one import itself) the import runs to its end here.
   */
  sliceMs?: number;
}

/** Called after each saved page (the CLI's progress bar). */
export type OnProgress = (row: ImportRow) => void;

const DEFAULT_INTERVAL_MS = 5_000;
/** Longer than a page takes; every page and every wait renews it. */
export const IMPORT_LEASE_MS = 5 * 60_000;
/** Two hours from the first claim: 10,000 CSV rows or a source's 100,000 links take minutes. */
export const IMPORT_DEADLINE_MS = 2 * 60 * 60_000;
/** Whole pages are run until this much time has passed; then the next organization's import. */
export const SLICE_MS = 10_000;

/** Thrown out of a wait when the worker stops: the import is handed back, not failed. */
class Stopping extends Error {}

/** The store failed under a wait (renewing the claim): the import is interrupted, not the source's fault. */
class Interrupted extends Error {}

/** "2 hours", "90 minutes", "30 seconds": the deadline as a person reads it. */
function spoken(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hour${ms === 3_600_000 ? '' : 's'}`;
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}

export function createImportWorker(deps: ImportWorkerDeps) {
  const { repo } = deps;
  const leaseMs = deps.leaseMs ?? IMPORT_LEASE_MS;
  const deadlineMs = deps.deadlineMs ?? IMPORT_DEADLINE_MS;
  const sliceMs = deps.sliceMs ?? SLICE_MS;
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

  const fail = (row: ImportRow, token: string, reason: string, total: number, item?: string) =>
    repo.finish(row.id, token, {
      status: 'failed',
      total,
      errors: [{ item: item ?? `${SOURCE_NAMES[row.source as ImportSourceName]} API`, reason }],
      now: iso(),
    });

  const deadlineOf = (row: ImportRow) => Date.parse(row.started_at ?? row.created_at) + deadlineMs;
  const outOfTime = () =>
    `The import did not finish within ${spoken(deadlineMs)} of starting; start it again to import the rest (what is already imported is skipped)`;

  /**
   * Runs an import this worker holds under `token` until it ends, the claim is lost, or (with
   * `options.sliceMs`) its slice is over or the source asks to come back later: then it is handed back.
   */
  async function run(
    claimed: ImportRow,
    token: string,
    onProgress?: OnProgress,
    options: RunOptions = {},
  ): Promise<void> {
    const name = SOURCE_NAMES[claimed.source as ImportSourceName];
    const params = await openParams(deps.secretBox, claimed.params, claimed.id);
    if (!params) {
      await fail(claimed, token, 'The import’s parameters cannot be read (was SESSION_SECRET replaced?)', 0);
      return;
    }
    const deadline = deadlineOf(claimed);
    let counted = claimed.imported + claimed.skipped + claimed.failed;
    let total = claimed.total;
    if (deps.now().getTime() >= deadline) {
      await fail(claimed, token, outOfTime(), Math.max(total, counted), 'Import');
      return;
    }
    // A wait must not let the claim run out under us.
    const heldWait = async (ms: number) => {
      try {
        await repo.renewClaim(claimed.id, token, iso(ms + leaseMs));
      } catch (error) {
        throw new Interrupted('the claim could not be renewed', { cause: error });
      }
      await wait(ms);
    };
    const source = openSource(params, { ...deps.http, sleep: heldWait });
    const job = { id: claimed.id, orgId: claimed.org_id, source: params.source };
    const sliceEnd = options.sliceMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.sliceMs;
    let cursor = claimed.cursor;
    for (;;) {
      if (stopping.signal.aborted) throw new Stopping();
      let page: SourcePage;
      try {
        page = await source.fetchPage(cursor);
      } catch (error) {
        if (error instanceof Stopping) throw error;
        if (error instanceof Interrupted) throw error.cause;
        if (error instanceof SourceBusy) {
          const resumeAt = deps.now().getTime() + error.waitMs;
          if (resumeAt > deadline) {
            const reason = `${error.message}, past this import’s deadline (${spoken(deadlineMs)}); start it again later (what is already imported is skipped)`;
            await fail(claimed, token, reason, Math.max(total, counted));
            return;
          }
          // The CLI waits; a server's worker serves other organizations meanwhile.
          if (options.sliceMs === undefined) {
            await heldWait(error.waitMs);
            continue;
          }
          await repo.releaseClaim(claimed.id, token, new Date(resumeAt).toISOString());
          return;
        }
        if (!(error instanceof SourceError)) {
          // A shape the source's reader did not expect: the answer is malformed, and trying again later
          // would read it the same way.
          deps.logger.warn({ err: error, importId: claimed.id }, 'import source answer unreadable');
        }
        const reason =
          error instanceof SourceError ? error.message : `${name} sent an answer linkhop cannot read`;
        await fail(claimed, token, reason, Math.max(total, counted));
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
      else if (deps.now().getTime() >= deadline) await fail(claimed, token, outOfTime(), total, 'Import');
      const row = await repo.findById(claimed.id);
      if (row) onProgress?.(row);
      if (row?.status !== 'running') return;
      cursor = page.next;
      if (Date.now() >= sliceEnd) {
        await repo.releaseClaim(claimed.id, token);
        return;
      }
    }
  }

  /** Claims the next organization's runnable import and runs a slice of it; 1 when there was one. */
  async function pass(): Promise<number> {
    const token = deps.uuid();
    const claimed = await repo.claim(token, iso(), iso(leaseMs));
    if (!claimed) return 0;
    try {
      await run(claimed, token, undefined, { sliceMs });
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
