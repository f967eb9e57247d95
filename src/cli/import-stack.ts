import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createAccountRepo } from '../accounts/repo.js';
import { createAccountService } from '../accounts/service.js';
import type { Config } from '../config.js';
import { createTxtLookup } from '../domains/dns-txt.js';
import { createDomainService } from '../domains/service.js';
import { composeImports, type ImportsDeps } from '../imports/compose.js';
import { createPreviewService } from '../links/preview.js';
import { createLinkRepo } from '../links/repo.js';
import { createLinkService, type LinkService } from '../links/service.js';
import { createGuardedFetcher } from '../net/guarded-fetch.js';
import { loadPlatformTable } from '../platform-table.js';
import { resolveSessionSecret } from '../session-secret.js';
import type { Store } from '../store/database.js';
import { createSecretBox } from '../webhooks/secret-box.js';
import { createWebhookService } from '../webhooks/service.js';

/**
 * The services an import needs, made outside the server (the CLI runs its import in-process). Links are
 * still created by the links service: slug rules, the plan's cap and link.created events apply.
 */

export interface ImportStackOptions {
  /** Tests: wrap the links service (to stop mid-import as a crash would). */
  wrapLinks?: (links: LinkService) => Pick<LinkService, 'create'>;
  /** Tests: a clock, a fetcher, a worker interval. */
  overrides?: Partial<Pick<ImportsDeps, 'now' | 'fetcher' | 'intervalMs' | 'startWorker'>>;
}

export function openImportStack(
  store: Store,
  config: Config,
  logger: Logger,
  options: ImportStackOptions = {},
) {
  const now = options.overrides?.now ?? (() => new Date());
  const accounts = createAccountService({ repo: createAccountRepo(store), now, uuid: randomUUID });
  const secretBox = createSecretBox({ current: resolveSessionSecret(config) });
  const webhookFetcher = createGuardedFetcher({ allowPrivate: config.allowPrivateWebhookTargets });
  const webhooks = createWebhookService({
    store,
    fetcher: webhookFetcher,
    secretBox,
    now,
    uuid: randomUUID,
    allowPrivate: config.allowPrivateWebhookTargets,
  });
  const links = createLinkService({
    repo: createLinkRepo(store),
    table: loadPlatformTable(config.platformsFile),
    baseUrl: config.baseUrl,
    now,
    uuid: randomUUID,
    randomBytes: (size) => randomBytes(size),
    // A new (host, slug) was never served, so no instance holds it in cache: nothing to drop.
    invalidate: () => undefined,
    // link.created deliveries are queued with each link; a running server's worker sends them.
    events: { emitIn: webhooks.emitIn, nudge: () => undefined },
    reapplyLinkCap: async (ctx) => {
      await accounts.reapplyLinkCap(ctx.orgId, ctx.tier);
    },
  });
  const previews = createPreviewService({
    store,
    links,
    // Imports only set titles; nothing here scrapes.
    scrape: async () => ({ title: null, description: null, image: null }),
    now,
    onChange: () => undefined,
  });
  const domains = createDomainService({
    store,
    baseUrl: config.baseUrl,
    lookupTxt: createTxtLookup(config.dnsResolver),
    now,
    uuid: randomUUID,
    randomToken: () => randomBytes(16).toString('hex'),
  });
  const imports = composeImports({
    store,
    accounts,
    links: options.wrapLinks ? options.wrapLinks(links) : links,
    previews,
    domains,
    secretBox,
    logger,
    config,
    startWorker: false,
    ...options.overrides,
  });
  return {
    accounts,
    imports,
    async close(): Promise<void> {
      await imports.close();
      await webhookFetcher.close();
    },
  };
}
