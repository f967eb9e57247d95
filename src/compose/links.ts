import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AccountService } from '../accounts/service.js';
import type { Config } from '../config.js';
import { createTxtLookup } from '../domains/dns-txt.js';
import { createDomainService } from '../domains/service.js';
import { createFolderService } from '../folders/service.js';
import { createHealthRepo, type VisitReads } from '../health/repo.js';
import { composeLinkExpiry } from '../links/expiry.js';
import { createPreviewService } from '../links/preview.js';
import { createLinkRepo } from '../links/repo.js';
import { createLinkService } from '../links/service.js';
import { createMailer, type MailTransport } from '../net/mail.js';
import { scrapePreview } from '../net/open-graph.js';
import { createPixelService } from '../pixels/service.js';
import { createReceiptService, loadReceiptKey } from '../receipts/service.js';
import { createHostedLinkCache } from '../redirect/link-cache.js';
import type { Store } from '../store/database.js';
import { composeHealth } from './health.js';
import type { Outbox } from './outbox.js';
import type { Shared } from './shared.js';

const LINK_CACHE_SIZE = 50_000;
const HOSTED_CACHE_TTL_MS = 60_000;

/**
 * Where links live: their rows, the custom domains, and the compiled-link cache every instance keeps
 * coherent through Redis. Made before the people side, which drops an erased organization's links from it.
 */
export async function composeHosts(config: Config, store: Store, shared: Shared, outbox: Outbox) {
  const linkRepo = createLinkRepo(store);
  const domains = createDomainService({
    store,
    baseUrl: config.baseUrl,
    lookupTxt: createTxtLookup(config.dnsResolver),
    now: shared.now,
    uuid: randomUUID,
    randomToken: () => randomBytes(16).toString('hex'),
    audit: outbox.audit,
  });
  const customHosts = async () => [...(await domains.verifiedHosts()), ...(await linkRepo.hostsInUse())];
  const { redis } = shared;
  const cache = await createHostedLinkCache({
    capacity: LINK_CACHE_SIZE,
    ttlMs: HOSTED_CACHE_TTL_MS,
    now: shared.clock,
    // Verified domains are the custom hosts: any other Host header gets the default host's links. The
    // hostnames links already use are added so no link ever stops redirecting (a domain removed while a
    // link was being created on it, a row edited by hand). Read again after a Redis outage.
    customHosts: await customHosts(),
    loadCustomHosts: customHosts,
    ...(redis ? { redis: { publisher: redis.publisher, subscriber: redis.subscriber } } : {}),
  });
  return { linkRepo, domains, cache };
}

export type Hosts = Awaited<ReturnType<typeof composeHosts>>;

/**
 * The link powers: the link service (every write invalidates the cache and queues its event), campaign
 * end dates and click limits, previews, folders, pixels and signed receipts.
 */
export async function composeLinks(parts: {
  config: Config;
  store: Store;
  logger: Logger;
  shared: Shared;
  outbox: Outbox;
  hosts: Hosts;
  accounts: Pick<AccountService, 'reapplyLinkCap'>;
  /** SMTP_URL's transport (null without) and MAIL_FROM: the destination health digest. */
  mail: { mailTransport: MailTransport | null; mailFrom: string };
  /** ANALYTICS_URL's store, for destination health's "was it visited" (compose/health.ts). */
  analytics?: VisitReads;
}) {
  const { config, store, logger, shared, outbox, hosts, accounts } = parts;
  const { audit, events } = outbox;
  const { cache } = hosts;
  const { now } = shared;
  const healthRepo = createHealthRepo(store.db, store.dialect);
  const links = createLinkService({
    repo: hosts.linkRepo,
    table: shared.table,
    baseUrl: config.baseUrl,
    now,
    uuid: randomUUID,
    randomBytes: (size) => randomBytes(size),
    invalidate: (host, slug) => cache.invalidate(host, slug),
    events,
    reapplyLinkCap: async (ctx) => {
      await accounts.reapplyLinkCap(ctx.orgId, ctx.tier);
    },
    audit,
    trackDestination: (trx, url) => healthRepo.track(trx, url, now().toISOString()),
    destinationChecks: (url) => healthRepo.history(url),
  });
  const linkExpiry = composeLinkExpiry({
    store,
    linkRepo: hosts.linkRepo,
    links,
    events,
    cache,
    logger,
    now,
  });
  // Destination health (issue #33): the checker re-points links with a fallback while their destination is down.
  const health = composeHealth({
    config,
    repo: healthRepo,
    linkRepo: hosts.linkRepo,
    links,
    events,
    cache,
    logger,
    clock: shared.clock,
    ...(parts.analytics ? { analytics: { reads: parts.analytics, db: store.db } } : {}),
    mailer: createMailer({
      transport: parts.mail.mailTransport,
      from: parts.mail.mailFrom,
      mailsPerAddress: shared.limits.signupMails,
      logger,
    }),
  });
  return {
    links,
    health,
    /** The link jobs: the expiry sweep and the destination checker. */
    start() {
      linkExpiry.start();
      health.start();
    },
    async stop() {
      await linkExpiry.stop();
      await health.stop();
    },
    // Campaign end dates and click limits (issue #20): the click counter and the link.expired sweep.
    linkExpiry,
    previews: createPreviewService({
      store,
      links,
      scrape: (url) => scrapePreview(shared.fetcher, url),
      now,
      onChange: (link) => cache.invalidate(link.hostname ?? '', link.slug),
      audit,
    }),
    folders: createFolderService({ store, now, uuid: randomUUID, audit }),
    pixels: createPixelService({
      store,
      now,
      uuid: randomUUID,
      invalidateOrganization: (orgId) => cache.invalidateOrganization(orgId),
      audit,
    }),
    receipts: createReceiptService({
      links,
      privateKey: await loadReceiptKey(store, config.receiptSigningKey, now),
      now,
    }),
  };
}
