import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sendCreatorPage } from '../bio/routes.js';
import { appError } from '../errors.js';
import { sendNotFoundPage } from '../http/html.js';
import { errorResponses, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { renderPublicStatsPage } from './page-html.js';
import { linkListStatsQuery, linkListStatsSchema, publicStatsSchema, statsSlugParams } from './schema.js';
import type { PublicStatsService } from './service.js';

export interface PublicStatsRouteDeps {
  stats: PublicStatsService;
  /** The redirect's own host resolution: a custom hostname's links, else the default host's (''). */
  lookupHost: (hostHeader: string | undefined) => string;
  baseUrl: string;
  nonce: () => string;
}

/** `GET /api/public/stats/{slug}`: the JSON, no auth; 404 unless the link's stats are public. */
export async function publicStatsApiRoutes(app: FastifyInstance, deps: PublicStatsRouteDeps): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/public/stats/:slug',
    {
      schema: {
        operationId: 'getPublicStats',
        summary: "Get a link's public stats (when its owner made them public)",
        tags: ['links'],
        security: [],
        description:
          'A link’s public stats over the last 30 days (clicks, series, countries, devices, app-open rate), ' +
          'when its `publicStats` is true; 404 otherwise. No visitor-level data.',
        params: statsSlugParams,
        response: { 200: publicStatsSchema, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const stats = await deps.stats.read(deps.lookupHost(request.headers.host), request.params.slug);
      if (!stats) throw appError('not_found', 'No public stats for this link');
      reply.header('cache-control', 'public, max-age=60');
      return stats;
    },
  );
}

/** `GET /{slug}+`: the public stats page, on the default host and on custom hostnames. */
export async function publicStatsPageRoutes(app: FastifyInstance, deps: PublicStatsRouteDeps): Promise<void> {
  app.get<{ Params: { stats: string } }>(
    '/:stats(^[A-Za-z0-9_-]{1,32}[+]$)',
    { schema: { hide: true } },
    async (request, reply) => {
      const host = deps.lookupHost(request.headers.host);
      const slug = request.params.stats.slice(0, -1);
      const stats = await deps.stats.read(host, slug);
      if (!stats) return sendNotFoundPage(reply);
      const shortUrl = host === '' ? `${deps.baseUrl}/${stats.slug}` : `https://${host}/${stats.slug}`;
      const nonce = deps.nonce();
      return sendCreatorPage(reply, nonce, renderPublicStatsPage({ stats, shortUrl, nonce }));
    },
  );
}

/**
 * `GET /links/stats?ids=`: the links list's clicks (30 days) and app-open rate, under /v1 and /api. These
 * are analytics, whatever the path says: a `links:read` key must not read them (issue #30).
 */
export async function linkListStatsRoutes(
  app: FastifyInstance,
  deps: { stats: PublicStatsService; operationPrefix?: string },
): Promise<void> {
  const op = operationIds(deps.operationPrefix);
  app.withTypeProvider<ZodTypeProvider>().get(
    '/links/stats',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('listLinkStats'),
        summary: 'Get 30-day clicks and app-open rates for a list of links',
        tags: ['links'],
        description:
          'Clicks over the last 30 days and the app-open rate of each link given (comma-separated `ids`), ' +
          'as the links list shows them.',
        querystring: linkListStatsQuery,
        response: { 200: linkListStatsSchema, ...errorResponses(400) },
      },
    },
    async (request) => deps.stats.linkList(orgOf(request), request.query.ids),
  );
}
