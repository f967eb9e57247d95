import { randomUUID } from 'node:crypto';
import type { AccountService } from '../accounts/service.js';
import { createLinkExport } from '../links/bulk-export.js';
import { createBulkActionRepo } from '../links/bulk-repo.js';
import { createBulkActionService } from '../links/bulk-service.js';
import { type BulkWorkerDeps, type BulkWorkerLogger, createBulkActionWorker } from '../links/bulk-worker.js';
import type { LinkRepo } from '../links/repo.js';
import type { LinkService } from '../links/service.js';
import type { Store } from '../store/database.js';
import { featuresOf } from '../tenancy/plans.js';

/**
 * Bulk actions on links and the CSV export (issue #34), wired from the link service they go through: the
 * service, its worker (started here, stopped by close) and the exporter.
 */

export interface BulkActionsDeps {
  store: Store;
  links: Pick<LinkService, 'get' | 'list' | 'update' | 'archive' | 'unarchive'>;
  linkRepo: Pick<LinkRepo, 'folderExists'>;
  accounts: Pick<AccountService, 'getOrganization'>;
  logger: BulkWorkerLogger;
  now: () => Date;
  uuid?: () => string;
  /** Off for a test that runs the worker it makes itself. */
  startWorker?: boolean;
  intervalMs?: number;
}

export function composeBulkActions(deps: BulkActionsDeps) {
  const uuid = deps.uuid ?? randomUUID;
  const repo = createBulkActionRepo(deps.store);
  const workerDeps: BulkWorkerDeps = {
    repo,
    links: deps.links,
    orgContext: async (orgId) => {
      const { tier } = await deps.accounts.getOrganization(orgId);
      return { orgId, tier, features: featuresOf(tier) };
    },
    now: deps.now,
    uuid,
    logger: deps.logger,
    ...(deps.intervalMs === undefined ? {} : { intervalMs: deps.intervalMs }),
  };
  const worker = createBulkActionWorker(workerDeps);
  const service = createBulkActionService({
    repo,
    links: deps.links,
    folderExists: (orgId, folderId) => deps.linkRepo.folderExists(orgId, folderId),
    now: deps.now,
    uuid,
    nudge: () => worker.nudge(),
  });
  if (deps.startWorker !== false) worker.start();
  return {
    service,
    worker,
    repo,
    exporter: createLinkExport({ links: deps.links, repo }),
    /** Another worker on the same services (tests: a second instance, a slice of their choosing). */
    workerWith: (options: Partial<Pick<BulkWorkerDeps, 'sliceMs' | 'leaseMs' | 'links' | 'now'>>) =>
      createBulkActionWorker({ ...workerDeps, ...options }),
    /** Stops the worker: a job in progress is handed back after the link in hand. */
    close: () => worker.stop(),
  };
}

export type BulkActions = ReturnType<typeof composeBulkActions>;
