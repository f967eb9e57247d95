import type { Redis } from 'ioredis';
import type { CompiledLink } from '../core/link-compile.js';
import type { PagePixel } from '../core/pages/index.js';
import { LruCache } from './lru-cache.js';

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
   * The lookup host of a request host: itself when some link uses it as a custom hostname, else ''
   * (the default host, whatever name it was reached by: BASE_URL's host, an IP, a load balancer's name).
   */
  lookupHost(requestHost: string): string;
  get(host: string, slug: string): HostedLinkEntry | undefined;
  set(entry: HostedLinkEntry): void;
  /** Drops (host, slug) here and, through Redis pub/sub, in every other instance. */
  invalidate(host: string, slug: string): void;
  close(): Promise<void>;
}

export const INVALIDATION_CHANNEL = 'linkhop:links:invalidate';

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

const keyOf = (host: string, slug: string) => `${host}\n${slug}`;

export async function createHostedLinkCache(options: HostedLinkCacheOptions): Promise<HostedLinkCache> {
  const now = options.now ?? Date.now;
  const entries = new LruCache<string, { entry: HostedLinkEntry; expiresAt: number }>(options.capacity);
  const customHosts = new Set(options.customHosts);
  const forget = (key: string) => {
    entries.delete(key);
    const host = key.slice(0, key.indexOf('\n'));
    if (host !== '') customHosts.add(host);
  };
  const redis = options.redis;
  if (redis) {
    await redis.subscriber.subscribe(INVALIDATION_CHANNEL);
    redis.subscriber.on('message', (channel: string, key: string) => {
      if (channel === INVALIDATION_CHANNEL) forget(key);
    });
  }
  return {
    lookupHost(requestHost) {
      return customHosts.has(requestHost) ? requestHost : '';
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
    async close() {
      if (redis) await redis.subscriber.unsubscribe(INVALIDATION_CHANNEL).catch(() => undefined);
    },
  };
}
