import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { type HostedRedirectDeps, hostedRedirectRoutes } from '../redirect/hosted-routes.js';
import { sendNotFoundPage } from './html.js';
import { logsRequests } from './logging.js';

export interface HostedAppDeps {
  logger: FastifyBaseLogger;
  ping: () => Promise<void>;
  redirect: HostedRedirectDeps;
}

/**
 * The hosted service's HTTP app. Each domain registers its own encapsulated plugin here, read top to
 * bottom; the redirect scope carries no hooks.
 */
export function buildHostedApp(deps: HostedAppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    disableRequestLogging: !logsRequests(deps.logger),
    ignoreTrailingSlash: true,
  });

  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ error: 'bad_request', message: error instanceof Error ? error.message : 'Bad request' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side' });
  });

  app.setNotFoundHandler((request, reply) => {
    if (/^\/(api|v1|internal)(\/|$)/.test(request.url)) {
      return reply.code(404).send({ error: 'not_found', message: 'No such route' });
    }
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

  app.register(hostedRedirectRoutes, deps.redirect);
  return app;
}
