import type { clickSink } from '../analytics/write/click-sink.js';
import { writerThreadMemory } from '../analytics/write/click-thread.js';
import { createMetrics } from '../http/metrics.js';
import { keysHeld } from '../http/rate-limit.js';
import type { Store } from '../store/database.js';
import type { Hosts } from './links.js';
import type { Outbox } from './outbox.js';
import type { composeRedirect } from './redirect.js';
import type { Shared } from './shared.js';

/** /metrics: requests and redirects, the click sink, the database and Redis, memory by thread and by cache. */
export function composeMetrics(parts: {
  store: Store;
  shared: Shared;
  outbox: Outbox;
  hosts: Hosts;
  clicks: ReturnType<typeof clickSink>;
  redirect: Pick<ReturnType<typeof composeRedirect>, 'respondToVisit' | 'classify'>;
  /** What analytics hold in memory (compose/analytics.ts). */
  held: () => { tapIds: number; outcomes: number };
  /** ANALYTICS_URL's ClickHouse: its state as last seen (a call, a ping, the writer thread's writes). */
  clickhouse: { health: { readonly up: boolean } } | null;
}) {
  const { store, shared, clicks } = parts;
  const { redis, limits } = shared;
  return createMetrics({
    clicks: () => clicks.stats(),
    dbUp: () => store.health.up,
    ...(redis ? { redisUp: () => redis.health.up } : {}),
    ...(parts.clickhouse ? { analyticsUp: () => parts.clickhouse?.health.up ?? false } : {}),
    outboxDepth: () => parts.outbox.deliveries.depth(),
    threads: async () => ({ 'click-writer': await writerThreadMemory(clicks) }),
    caches: () => {
      const held = parts.held();
      return {
        links: { entries: parts.hosts.cache.size() },
        compiled_pages: parts.redirect.respondToVisit.pages(),
        ua_classifier: { entries: parts.redirect.classify.entries() },
        rate_limits: { entries: keysHeld(Object.values(limits)) },
        tap_ids: { entries: held.tapIds },
        held_outcomes: { entries: held.outcomes },
      };
    },
  });
}
