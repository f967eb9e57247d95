import type { FastifyInstance } from 'fastify';

/**
 * Health for load balancers and operators.
 * - `GET /health` (readiness): `{ok: true}` when every dependency answers (decisions.md); otherwise
 *   `{ok: false, status: "degraded", db, redis, rateLimit}` naming what is down, with 503 while the database
 *   is away (API writes cannot be served) and 200 while only Redis is (everything still works per instance).
 *   With ANALYTICS_URL the body always says `analytics: "up"|"down"` (one ClickHouse round trip, bounded
 *   as the database's); ClickHouse away alone is 200 and degraded: redirects and the API work, clicks are
 *   held and spilled, only analytics reads answer 503.
 * - `GET /health/live` (liveness): 200 while the process can serve cached links, whatever is down behind it.
 *   An orchestrator restarts on liveness, never on readiness: a restart would empty the link cache.
 * - `GET /metrics`: Prometheus text (metrics.ts).
 */

export interface HealthDeps {
  /** One round trip to the database, bounded in time by the caller. */
  ping: () => Promise<void>;
  /** Absent when Redis is not configured. */
  redis?: { up: () => boolean; rateLimitMode: () => 'shared' | 'local' };
  /** Absent without ANALYTICS_URL: one round trip to ClickHouse. */
  analytics?: { ping: () => Promise<void> };
}

const PING_TIMEOUT_MS = 1000;

export interface HealthReport {
  ok: boolean;
  status?: 'degraded';
  db?: 'up' | 'down';
  redis?: 'up' | 'down' | 'not_configured';
  rateLimit?: 'shared' | 'local';
  analytics?: 'up' | 'down';
}

export async function checkHealth(deps: HealthDeps): Promise<{ status: number; body: HealthReport }> {
  const answered = (ping: () => Promise<void>) =>
    ping().then(
      () => true,
      () => false,
    );
  const [dbUp, analyticsUp] = await Promise.all([
    answered(deps.ping),
    deps.analytics ? answered(deps.analytics.ping) : true,
  ]);
  const redisUp = deps.redis ? deps.redis.up() : true;
  const analytics = deps.analytics ? { analytics: analyticsUp ? ('up' as const) : ('down' as const) } : {};
  if (dbUp && redisUp && analyticsUp) return { status: 200, body: { ok: true, ...analytics } };
  return {
    status: dbUp ? 200 : 503,
    body: {
      ok: false,
      status: 'degraded',
      db: dbUp ? 'up' : 'down',
      redis: deps.redis ? (redisUp ? 'up' : 'down') : 'not_configured',
      ...(deps.redis ? { rateLimit: deps.redis.rateLimitMode() } : {}),
      ...analytics,
    },
  };
}

/** The ping, failing after PING_TIMEOUT_MS so a hung database makes the check answer, not hang. */
export function boundedPing(ping: () => Promise<void>, ms = PING_TIMEOUT_MS): () => Promise<void> {
  return () => withTimeout(ping(), ms, 'database ping timed out');
}

/** `promise`, or a rejection with `message` once `ms` have passed: a probe never waits on a hung dependency. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message = 'timed out'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function healthRoutes(app: FastifyInstance, deps: HealthDeps): Promise<void> {
  const ping = boundedPing(deps.ping);
  app.get('/health', { schema: { hide: true } }, async (_request, reply) => {
    const { status, body } = await checkHealth({
      ...deps,
      ping,
      ...(deps.analytics ? { analytics: { ping: boundedPing(deps.analytics.ping) } } : {}),
    });
    return reply.code(status).header('cache-control', 'no-store').send(body);
  });
  app.get('/health/live', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ live: true }),
  );
}
