import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompiledDestination } from '../core/destination.js';
import type { LruCache } from '../core/lru-cache.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { sendNotFoundPage, sendUnavailablePage } from '../http/html.js';
import { sendVisitResponse, type VisitResponder } from '../redirect/respond.js';
import { EngineError } from './errors.js';
import { WEBSITE_VISITOR, wantsWebsite } from './fast-path.js';
import { ENGINE_SLUG_PATTERN, parseCreateEngineLink } from './schema.js';
import type { EngineLinkService } from './service.js';

export interface EngineRoutesDeps {
  links: EngineLinkService;
  authorize: (authorization: string | undefined) => boolean;
  respondToVisit: VisitResponder;
  /** slug -> compiled destination; engine links never change, so an entry never goes stale. */
  cache: LruCache<string, CompiledDestination>;
  loadCompiled: (slug: string) => Promise<CompiledDestination | undefined>;
}

/** Every route of self-hosted-engine.md section 4, with the 405 and 401 rules checked before the body. */
export async function engineRoutes(app: FastifyInstance, deps: EngineRoutesDeps): Promise<void> {
  const guard = (allowed: string) => async (request: FastifyRequest) => {
    if (request.method !== allowed) throw new EngineError('method_not_allowed');
    if (!deps.authorize(request.headers.authorization)) throw new EngineError('unauthorized');
  };

  app.all('/api/links', { onRequest: guard('POST') }, async (request, reply) => {
    // An absent body (no content type, or empty) is not valid JSON either.
    if (request.body === undefined) throw new EngineError('invalid_json');
    const link = await deps.links.create(parseCreateEngineLink(request.body));
    return reply.code(201).send(link);
  });

  app.all<{ Params: { slug: string } }>('/api/links/:slug', { onRequest: guard('GET') }, async (request) => {
    // A slug no link can carry (a NUL, junk) names nothing: 404 before the store sees it.
    if (!ENGINE_SLUG_PATTERN.test(request.params.slug)) throw new EngineError('not_found');
    return deps.links.get(request.params.slug);
  });

  app.get<{ Params: { slug: string } }>('/:slug', async (request, reply) => visit(request, reply, deps));
}

async function visit(
  request: FastifyRequest<{ Params: { slug: string } }>,
  reply: FastifyReply,
  deps: EngineRoutesDeps,
): Promise<FastifyReply> {
  const slug = request.params.slug;
  let compiled = deps.cache.get(slug);
  if (compiled === undefined) {
    if (!ENGINE_SLUG_PATTERN.test(slug)) return sendNotFoundPage(reply);
    try {
      compiled = await deps.loadCompiled(slug);
    } catch {
      // The store cannot be asked: a link that may exist is never reported gone. Links already served
      // stay in the cache (engine links never change), so they keep redirecting meanwhile.
      return sendUnavailablePage(reply, UNAVAILABLE_RETRY_AFTER_SECONDS);
    }
    if (compiled === undefined) return sendNotFoundPage(reply);
    deps.cache.set(slug, compiled);
  }
  const options = wantsWebsite(request.url) ? { visitor: WEBSITE_VISITOR } : {};
  return sendVisitResponse(reply, deps.respondToVisit(request.headers, compiled, options));
}
