import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { loadEscapeMatrix } from '../escape-matrix.js';
import { createGuardedFetcher, type GuardedFetcher } from '../net/guarded-fetch.js';
import { loadPlatformTable } from '../platform-table.js';
import { resolveSessionSecret } from '../session-secret.js';
import type { Store } from '../store/database.js';
import { logDbHealth } from '../store/db-health.js';
import { recordRedisInvalidation } from '../store/deployment-facts.js';
import { openRedisClients } from '../store/redis-clients.js';
import { createSecretBox } from '../webhooks/secret-box.js';
import { createLimits } from './limits.js';

/** What a test composes the service with instead of the real thing (see ComposeOptions in src/app.ts). */
export interface SharedOptions {
  fetcher?: GuardedFetcher;
  /** Milliseconds since the epoch, read by every service that tells time (default: the system clock). */
  now?: () => number;
}

/**
 * What every group of the hosted service shares, made first: the clock, the platform table and escape
 * matrix (data, validated here at start), the session secret, Redis when configured, every rate limit, the
 * one SSRF guard for user-given URLs and the box that encrypts stored secrets.
 */
export async function composeShared(
  config: Config,
  store: Store,
  logger: Logger,
  options: SharedOptions = {},
) {
  // One clock for the whole service: `clock` for those that count milliseconds, `now` for those that
  // stamp dates. The system's unless a test brings its own.
  const clock = options.now ?? Date.now;
  const now = () => new Date(clock());
  const table = loadPlatformTable(config.platformsFile);
  const escapeMatrix = loadEscapeMatrix(config.escapeMatrixFile);
  const sessionSecret = resolveSessionSecret(config);
  logDbHealth(store.health, logger);
  const redis = config.redisUrl ? await openRedisClients(config.redisUrl, logger) : undefined;
  // The CLI reads this: its changes must then reach every instance through Redis (`org purge`).
  if (redis) await recordRedisInvalidation(store, logger);
  const limits = createLimits(clock, redis && { publisher: redis.publisher, up: () => redis.health.up });
  // Every fetch of a user-given URL (webhook deliveries, preview scrapes, import sources) goes through it.
  const fetcher =
    options.fetcher ?? createGuardedFetcher({ allowPrivate: config.allowPrivateWebhookTargets });
  const secretBox = createSecretBox({ current: sessionSecret });
  return { clock, now, table, escapeMatrix, sessionSecret, redis, limits, fetcher, secretBox };
}

export type Shared = Awaited<ReturnType<typeof composeShared>>;
