import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { sendNotFoundPage } from '../http/html.js';
import { requestLogController } from '../http/logging.js';
import { serverWithFastPath } from '../redirect/fast-path-server.js';
import { isConnectionError } from '../store/db-errors.js';
import { EngineError } from './errors.js';
import { createEngineFastPath } from './fast-path.js';
import { type EngineRoutesDeps, engineRoutes } from './routes.js';

export interface EngineAppDeps extends EngineRoutesDeps {
  logger: FastifyBaseLogger;
  /** Answers whether the store is reachable, for /health. */
  ping: () => Promise<void>;
}

const BODY_LIMIT = 64 * 1024;

/** The self-hosted engine's HTTP app: its JSON error texts, its 404 page, no per-request hooks. */
export function buildEngineApp(deps: EngineAppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: requestLogController(deps.logger),
    routerOptions: { ignoreTrailingSlash: true },
    serverFactory: serverWithFastPath(createEngineFastPath(deps)),
    bodyLimit: BODY_LIMIT,
    // The engine speaks JSON only: accept any content type and decide validity ourselves, so a wrong
    // header still yields the spec's "Invalid JSON body" rather than a 415.
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new EngineError('invalid_json'), undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof EngineError) return reply.code(error.status).send(error.toBody());
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) return reply.code(413).send({ error: 'Payload too large' });
    if (status === 400) return reply.code(400).send({ error: 'Invalid JSON body' });
    // The store is away: a 503 to retry, never a 500 (logged once by the pool's health tracker).
    if (isConnectionError(error)) {
      return reply
        .code(503)
        .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
        .send({ error: 'Service unavailable' });
    }
    request.log.error({ err: error }, 'engine request failed');
    return reply.code(500).send({ error: 'Internal error' });
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/')) return reply.code(404).send({ error: 'Not found' });
    return sendNotFoundPage(reply);
  });

  app.get('/health', async (_request, reply) => {
    try {
      await deps.ping();
      return { ok: true };
    } catch {
      return reply.code(503).send({ ok: false });
    }
  });

  app.register(engineRoutes, deps);
  return app;
}
