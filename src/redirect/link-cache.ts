import type { Redis } from 'ioredis';
import type { CompiledLink } from '../core/link-compile.js';
import { LruCache } from '../core/lru-cache.js';
import type { PagePixel } from '../core/pages/index.js';

/** A hosted link as the redirect serves it, compiled once per cache fill. */
export interface HostedLinkEntry {
  id: string;
  orgId: string;
  host: string;
  slug: string;
  branded: boolean;
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
  get(host: string, slug: string): HostedLinkEntry | undefined;
  set(entry: HostedLinkEntry): void;
  /** Drops (host, slug) here and, through Redis pub/sub, in every other instance. */
  invalidate(host: string, slug: string): void;
  /**
   * Drops every link of the organization, here and in every other instance: for changes that reach all of
   * its links at once (a pixel deleted, a plan change altering branding, pixels and the fallback).
   */
  invalidateOrganization(orgId: string): void;
  close(): Promise<void>;
}

export const INVALIDATION_CHANNEL = 'linkhop:links:invalidate';
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
  if (redis) {
    await redis.subscriber.subscribe(INVALIDATION_CHANNEL, ORG_INVALIDATION_CHANNEL);
    redis.subscriber.on('message', (channel: string, key: string) => {
      if (channel === INVALIDATION_CHANNEL) forget(key);
      else if (channel === ORG_INVALIDATION_CHANNEL) forgetOrganization(key);
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
      const key = keyOf(host, slug);
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return hit.entry;
    },
    set(entry) {
      entries.set(keyOf(entry.host, entry.slug), { entry, expiresAt: now() + options.ttlMs });
    },
    invalidate(host, slug) {
      const key = keyOf(host, slug);
      forget(key);
      redis?.publisher.publish(INVALIDATION_CHANNEL, key).catch(() => {
        // A lost message is bounded by the TTL; the local entry is already gone.
      });
    },
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
