import { createPollingLoop } from '../jobs/polling-loop.js';
import type { OrgContext } from '../tenancy/context.js';
import type { BulkActionRepo, BulkActionRow } from './bulk-repo.js';
import type { BulkAction } from './bulk-schema.js';
import { type BulkActionServiceDeps, parseActor, runOnLink } from './bulk-service.js';

/**
 * Runs large bulk actions off the request path, as the import worker runs imports (imports/worker.ts):
 * any instance may run one; a job is claimed by one worker at a time (a lease in its row), each link's
 * outcome is saved as it is made, and a lease that runs out (the instance died) lets the next worker resume
 * at the first link without an outcome. Fair: a worker runs a job for a slice, hands it back, and claims
 * the job of the organization served longest ago, so one tenant's 100,000 links never keep another's
 * 200 waiting for more than a slice.
 */

export interface BulkWorkerLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface BulkWorkerDeps {
  repo: BulkActionRepo;
  links: BulkActionServiceDeps['links'];
  /** The organization's plan as it is now (it may change during a long job). */
  orgContext: (orgId: string) => Promise<OrgContext>;
  now: () => Date;
  uuid: () => string;
  logger: BulkWorkerLogger;
  intervalMs?: number;
  leaseMs?: number;
  /** How long a worker runs one job before serving the next organization. */
  sliceMs?: number;
}

const DEFAULT_INTERVAL_MS = 5_000;
/** Longer than one link takes; every saved link renews it. */
export const BULK_LEASE_MS = 60_000;
export const BULK_SLICE_MS = 10_000;
/** Links read per query of the frozen selection. */
const BATCH = 100;

export function createBulkActionWorker(deps: BulkWorkerDeps) {
  const { repo } = deps;
  const leaseMs = deps.leaseMs ?? BULK_LEASE_MS;
  const sliceMs = deps.sliceMs ?? BULK_SLICE_MS;
  const iso = (offsetMs = 0) => new Date(deps.now().getTime() + offsetMs).toISOString();
  let stopping = false;

  /** Runs a held job until it ends, its slice is over, the worker stops or the claim is lost. */
  async function run(job: BulkActionRow, token: string): Promise<void> {
    const action = JSON.parse(job.action) as BulkAction;
    const actor = parseActor(job.actor);
    const ctx = { ...(await deps.orgContext(job.org_id)), ...(actor ? { actor } : {}) };
    const sliceEnd = Date.now() + sliceMs;
    for (;;) {
      const items = await repo.pendingItems(job.id, BATCH);
      if (items.length === 0) {
        await repo.finish(job.id, token, 'done', iso());
        return;
      }
      for (const item of items) {
        if (stopping || Date.now() >= sliceEnd) {
          await repo.releaseClaim(job.id, token);
          return;
        }
        const result = await runOnLink(deps.links, ctx, action, item.link_id);
        const outcome = {
          position: item.position,
          outcome: result.outcome,
          error: result.error?.error ?? null,
          message: result.error?.message ?? null,
        };
        if (!(await repo.saveItem(job.id, token, outcome, iso(leaseMs), iso()))) {
          deps.logger.warn({ bulkActionId: job.id }, 'bulk action claim lost; another worker continues it');
          return;
        }
      }
    }
  }

  /** Claims the next organization's runnable job and runs a slice of it; 1 when there was one. */
  async function pass(): Promise<number> {
    if (stopping) return 0;
    const token = deps.uuid();
    const claimed = await repo.claim(token, iso(), iso(leaseMs));
    if (!claimed) return 0;
    try {
      await run(claimed, token);
    } catch (error) {
      // The store or a bug: the claim runs out and a later pass resumes at the first link without an outcome.
      deps.logger.error({ err: error, bulkActionId: claimed.id }, 'bulk action interrupted');
    }
    return 1;
  }

  const loop = createPollingLoop({
    pass,
    batchSize: 1,
    intervalMs: deps.intervalMs ?? DEFAULT_INTERVAL_MS,
    onError: (error) => deps.logger.error({ err: error }, 'bulk action pass failed'),
  });

  return {
    start(): void {
      stopping = false;
      loop.start();
    },
    nudge: loop.nudge,
    drain: loop.drain,
    /** Stops after the link in hand; the job is handed back, so any instance resumes it at once. */
    async stop(): Promise<void> {
      stopping = true;
      await loop.stop();
    },
  };
}

export type BulkActionWorker = ReturnType<typeof createBulkActionWorker>;
