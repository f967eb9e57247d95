import { randomBytes, randomUUID } from 'node:crypto';
import { createAccountRepo } from '../accounts/repo.js';
import { type AccountService, createAccountService } from '../accounts/service.js';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import { createLinkRepo } from '../links/repo.js';
import { createLinkService, type LinkService } from '../links/service.js';
import { createGuardedFetcher } from '../net/guarded-fetch.js';
import { loadPlatformTable } from '../platform-table.js';
import { resolveSessionSecret } from '../session-secret.js';
import type { Store } from '../store/database.js';
import { createSecretBox, type SecretBox } from '../webhooks/secret-box.js';
import { createWebhookService } from '../webhooks/service.js';

/**
 * The links service as the API's, made outside the server (the CLI's `link` and `import` commands): the
 * same slug rules, plan gates, link cap and link.created events (queued in the link's transaction; a
 * running server's worker delivers them).
 */
export function openCliLinks(
  store: Store,
  config: Config,
  options: { now?: () => Date; audit?: AuditLog } = {},
): { accounts: AccountService; links: LinkService; secretBox: SecretBox; close(): Promise<void> } {
  const now = options.now ?? (() => new Date());
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
    events: { emitIn: webhooks.emitIn, nudge: () => undefined },
    reapplyLinkCap: async (ctx) => {
      await accounts.reapplyLinkCap(ctx.orgId, ctx.tier);
    },
    ...(options.audit ? { audit: options.audit } : {}),
  });
  return { accounts, links, secretBox, close: () => webhookFetcher.close() };
}
