import { randomUUID } from 'node:crypto';
import type { AccountService } from '../accounts/service.js';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import type { DomainService } from '../domains/service.js';
import { createLinkWriter } from '../imports/link-writer.js';
import { createImportRepo } from '../imports/repo.js';
import { createImportService } from '../imports/service.js';
import { createImportWorker, type ImportWorkerDeps, type ImportWorkerLogger } from '../imports/worker.js';
import type { PreviewService } from '../links/preview.js';
import type { LinkService } from '../links/service.js';
import { createGuardedFetcher, type GuardedFetcher } from '../net/guarded-fetch.js';
import type { Store } from '../store/database.js';
import { featuresOf } from '../tenancy/plans.js';
import type { SecretBox } from '../webhooks/secret-box.js';

/**
 * The imports domain wired from the services it builds on; the server (src/app.ts) and the CLI
 * (src/cli/import.ts) both make it here, so an import runs the same way in either.
 */

export interface ImportsDeps {
  store: Store;
  accounts: Pick<AccountService, 'getOrganization'>;
  links: Pick<LinkService, 'create'>;
  previews: Pick<PreviewService, 'setCustom'>;
  domains: Pick<DomainService, 'list'>;
  secretBox: SecretBox;
  config: Pick<Config, 'baseUrl' | 'allowPrivateImportSources'>;
  logger: ImportWorkerLogger;
  /** Source APIs are user-given addresses: SSRF-guarded, with room for slow, big pages. Tests hand in theirs. */
  fetcher?: GuardedFetcher;
  now?: () => Date;
  uuid?: () => string;
  sleep?: (ms: number) => Promise<void>;
  intervalMs?: number;
  /** Off for the CLI, which runs its one import itself. */
  startWorker?: boolean;
  /** The audit log: who started which import. */
  audit?: AuditLog;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function composeImports(deps: ImportsDeps) {
  const now = deps.now ?? (() => new Date());
  const uuid = deps.uuid ?? randomUUID;
  const { baseUrl, allowPrivateImportSources } = deps.config;
  const fetcher =
    deps.fetcher ?? createGuardedFetcher({ allowPrivate: allowPrivateImportSources, timeoutMs: 30_000 });
  const repo = createImportRepo(deps.store);
  const writer = createLinkWriter({
    repo,
    links: deps.links,
    setTitle: async (ctx, linkId, title) => {
      await deps.previews.setCustom(ctx, linkId, { title });
    },
    verifiedHosts: async (ctx) =>
      new Set((await deps.domains.list(ctx)).filter((domain) => domain.verified).map((d) => d.hostname)),
    baseUrl,
    now,
    onUnexpected: (error, item) => deps.logger.error({ err: error, item: item.label }, 'import item failed'),
  });
  const workerDeps: ImportWorkerDeps = {
    repo,
    writer,
    orgContext: async (orgId) => {
      const { tier } = await deps.accounts.getOrganization(orgId);
      return { orgId, tier, features: featuresOf(tier) };
    },
    secretBox: deps.secretBox,
    http: { fetcher, sleep: deps.sleep ?? realSleep, now },
    now,
    uuid,
    logger: deps.logger,
    ...(deps.intervalMs === undefined ? {} : { intervalMs: deps.intervalMs }),
  };
  const worker = createImportWorker(workerDeps);
  const service = createImportService({
    repo,
    secretBox: deps.secretBox,
    checkUrl: (url) => fetcher.checkUrl(url),
    now,
    uuid,
    nudge: () => worker.nudge(),
    ...(deps.audit ? { audit: deps.audit } : {}),
  });
  if (deps.startWorker !== false) worker.start();
  return {
    service,
    worker,
    repo,
    /** Another worker on the same services with its own slice or deadline (tests). */
    workerWith: (options: Pick<ImportWorkerDeps, 'sliceMs' | 'deadlineMs'>) =>
      createImportWorker({ ...workerDeps, ...options }),
    /** Stops the worker (an import in progress is handed back at its last saved page) and the fetcher. */
    async close(): Promise<void> {
      await worker.stop();
      if (!deps.fetcher) await fetcher.close();
    },
  };
}

export type Imports = ReturnType<typeof composeImports>;
