import type { Redis } from 'ioredis';
import type { CompiledLink } from '../core/link-compile.js';
import { LruCache } from '../core/lru-cache.js';
import type { PagePixel } from '../core/pages/index.js';
import type { RedirectRecord } from '../links/repo.js';

/** A hosted link as the redirect serves it, compiled once per cache fill. */
export interface HostedLinkEntry {
  id: string;
  orgId: string;
  host: string;
  slug: string;
  branded: boolean;
  /** False once the organization is erased: the link redirects, its visits are not recorded. */
  recorded: boolean;
  passwordHash: string | null;
  /** The link's pixels when its plan has pixelInjection, else empty. */
  pixels: readonly PagePixel[];
  /** Set when the plan has richFallback: what the fallback page shows. */
  fallback: {
    preview: { title: string | null; description: string | null; image: string | null } | null;
    /** Set when the capture form shows (rule 5 of 4.4): the organization's display name for the consent. */
    capture: { orgName: string } | null;
  } | null;
  link: CompiledLink;
}

export interface HostedLinkCache {
  /**
   * The lookup host of a request's Host header (any case, with or without a port): the host when some
   * link uses it as a custom hostname, else ''
   * (the default host, whatever name it was reached by: BASE_URL's host, an IP, a load balancer's name).
   */
  lookupHost(hostHeader: string | undefined): string;
  /** The entry while it is fresh (within the TTL): what a visit serves without asking the database. */
  get(host: string, slug: string): HostedLinkEntry | undefined;
  /**
   * The entry however old: expired entries are kept (until evicted or invalidated) so that a link already
   * served keeps answering exactly as before while the database cannot be asked.
   */
  getStale(host: string, slug: string): HostedLinkEntry | undefined;
  /** Stores an entry, fresh for the TTL or for `ttlMs` (a short retry period for an entry served stale). */
  set(entry: HostedLinkEntry, ttlMs?: number): void;
  /**
   * Keeps a copy of a link's redirect record in Redis (when configured), so that another instance can
   * serve the link while the database is away. Fire and forget: a Redis failure is swallowed.
   */
  saveRecord(host: string, slug: string, record: RedirectRecord): void;
  /** The Redis copy, or undefined when there is none, no Redis, or Redis fails or is slow. */
  loadRecord(host: string, slug: string): Promise<RedirectRecord | undefined>;
  /** Drops (host, slug) here and, through Redis pub/sub, in every other instance. */
  invalidate(host: string, slug: string): void;
  /** Drops every local entry (not other instances'): the next visits load from the store. */
  clearLocal(): void;
  /** Entries held here now, fresh or stale (for /metrics). */
  size(): number;
  /**
   * Drops every link of the organization, here and in every other instance: for changes that reach all of
   * its links at once (a pixel deleted, a plan change altering branding, pixels and the fallback).
   */
  invalidateOrganization(orgId: string): void;
  close(): Promise<void>;
}

export const INVALIDATION_CHANNEL = 'linkhop:links:invalidate';
/** The Redis copy of a link's redirect record: `linkhop:link:<host>\n<slug>` (or the bare slug). */
export const RECORD_PREFIX = 'linkhop:link:';
/** How long a Redis copy lives without being refreshed by a load: a week of database outage is covered. */
const RECORD_TTL_SECONDS = 7 * 24 * 3600;
/** A Redis read on the way to a 503 may take this long at most. */
const RECORD_READ_TIMEOUT_MS = 250;
const MAX_UNPUBLISHED = 10_000;
export const ORG_INVALIDATION_CHANNEL = 'linkhop:orgs:invalidate';

/** Tells every instance to drop an organization's links; for processes without a cache (the CLI). */
export async function publishOrganizationInvalidation(publisher: Redis, orgId: string): Promise<void> {
  await publisher.publish(ORG_INVALIDATION_CHANNEL, orgId);
}

export interface HostedLinkCacheOptions {
  capacity: number;
  /**
   * An upper bound on staleness for changes made outside this service's write paths (a plan change from
   * the CLI alters branding); every write through the API invalidates at once.
   */
  ttlMs: number;
  now?: () => number;
  redis?: { publisher: Redis; subscriber: Redis };
  /** The custom hostnames links use now; later ones arrive through `invalidate`. */
  customHosts: Iterable<string>;
  /** Reads them again after a Redis outage, when a new host's invalidation may have been missed. */
  loadCustomHosts?: () => Promise<Iterable<string>>;
}

// Default-host links, nearly all of them, are keyed by the bare slug: no string is built per visit. A slug
// never contains a newline, so the custom-host keys cannot collide with them.
const keyOf = (host: string, slug: string) => (host === '' ? slug : `${host}\n${slug}`);

export async function createHostedLinkCache(options: HostedLinkCacheOptions): Promise<HostedLinkCache> {
  const now = options.now ?? Date.now;
  const entries = new LruCache<string, { entry: HostedLinkEntry; expiresAt: number }>(options.capacity);
  const customHosts = new Set(options.customHosts);
  const forget = (key: string) => {
    entries.delete(key);
    const newline = key.indexOf('\n');
    if (newline > 0) customHosts.add(key.slice(0, newline));
  };
  const forgetOrganization = (orgId: string) => entries.deleteWhere((_key, hit) => hit.entry.orgId === orgId);
  const redis = options.redis;
  // Bounded: beyond the cap the oldest are left to the TTL.
  const unpublished = new Set<string>();
  // The link's Redis copy goes with its invalidation (and is deleted again with a retried one): the copy is
  // only read while the database is away, and must not outlive the change.
  const publish = (key: string) => {
    redis?.publisher.del(RECORD_PREFIX + key).catch(() => undefined);
    redis?.publisher.publish(INVALIDATION_CHANNEL, key).catch(() => {
      const oldest = unpublished.size >= MAX_UNPUBLISHED ? unpublished.values().next().value : undefined;
      if (oldest !== undefined) unpublished.delete(oldest);
      unpublished.add(key);
    });
  };
  if (redis) {
    const { subscriber } = redis;
    subscriber.on('message', (channel: string, key: string) => {
      if (channel === INVALIDATION_CHANNEL) forget(key);
      else if (channel === ORG_INVALIDATION_CHANNEL) forgetOrganization(key);
    });
    // Invalidations published while the subscriber was away were missed: once it is subscribed again
    // (the reply means the server has it), every local entry is dropped and reloaded from the store, and
    // hostnames first used meanwhile are read again.
    let missed = false;
    const subscribe = async () => {
      await subscriber.subscribe(INVALIDATION_CHANNEL, ORG_INVALIDATION_CHANNEL);
      if (!missed) return;
      missed = false;
      // Hostnames first: once the entries are gone, a visit to a new host must already find it.
      const hosts = (await options.loadCustomHosts?.().catch(() => [])) ?? [];
      for (const host of hosts) customHosts.add(host);
      entries.clear();
    };
    subscriber.on('close', () => {
      missed = true;
    });
    subscriber.on('ready', () => {
      subscribe().catch(() => undefined);
    });
    // Not ready yet (Redis away at start): the 'ready' listener subscribes when it arrives.
    if (subscriber.status === 'ready') await subscribe();
    // Invalidations this instance could not publish go out once its publisher is back, for the instances
    // that kept their own connection (they have nothing to drop on reconnect).
    redis.publisher.on('ready', () => {
      const keys = [...unpublished];
      unpublished.clear();
      for (const key of keys) publish(key);
    });
  }
  return {
    lookupHost(header) {
      // No link has a hostname yet (the common case): no header parsing on the hot path.
      if (customHosts.size === 0 || !header) return '';
      const host = header.toLowerCase().replace(/:\d+$/, '');
      return customHosts.has(host) ? host : '';
    },
    get(host, slug) {
      const hit = entries.get(keyOf(host, slug));
      return hit && hit.expiresAt > now() ? hit.entry : undefined;
    },
    getStale(host, slug) {
      return entries.get(keyOf(host, slug))?.entry;
    },
    set(entry, ttlMs = options.ttlMs) {
      entries.set(keyOf(entry.host, entry.slug), { entry, expiresAt: now() + ttlMs });
    },
    saveRecord(host, slug, record) {
      if (!redis) return;
      try {
        redis.publisher
          .set(RECORD_PREFIX + keyOf(host, slug), JSON.stringify(record), 'EX', RECORD_TTL_SECONDS)
          .catch(() => undefined);
      } catch {
        // Redis away: the copy is a fallback, never worth failing a visit.
      }
    },
    async loadRecord(host, slug) {
      if (!redis) return undefined;
      let timer: NodeJS.Timeout | undefined;
      try {
        const text = await Promise.race([
          redis.publisher.get(RECORD_PREFIX + keyOf(host, slug)),
          new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), RECORD_READ_TIMEOUT_MS);
          }),
        ]);
        return text ? (JSON.parse(text) as RedirectRecord) : undefined;
      } catch {
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    },
    invalidate(host, slug) {
      const key = keyOf(host, slug);
      forget(key);
      publish(key);
    },
    clearLocal() {
      entries.clear();
    },
    size: () => entries.size,
    invalidateOrganization(orgId) {
      forgetOrganization(orgId);
      redis?.publisher.publish(ORG_INVALIDATION_CHANNEL, orgId).catch(() => {
        // As for a single link: a lost message is bounded by the TTL.
      });
    },
    async close() {
      if (redis)
        await redis.subscriber
          .unsubscribe(INVALIDATION_CHANNEL, ORG_INVALIDATION_CHANNEL)
          .catch(() => undefined);
    },
  };
}
