import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { composeImports, type ImportsDeps } from '../compose/imports.js';
import type { Config } from '../config.js';
import { createTxtLookup } from '../domains/dns-txt.js';
import { createDomainService } from '../domains/service.js';
import { createPreviewService } from '../links/preview.js';
import type { LinkService } from '../links/service.js';
import type { Store } from '../store/database.js';
import { openCliLinks } from './link-stack.js';

/**
 * The services an import needs, made outside the server (the CLI runs its import in-process). Links are
 * still created by the links service (openCliLinks): slug rules, the plan's cap and link.created events apply.
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
  const { accounts, links, secretBox, close } = openCliLinks(store, config, { now });
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
      await close();
    },
  };
}
