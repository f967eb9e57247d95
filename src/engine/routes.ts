import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledDestination } from '../core/destination.js';
import type { LruCache } from '../core/lru-cache.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/retry-after.js';
import type { VisitResponder } from '../redirect/respond.js';
import { EngineError } from './errors.js';
import { WEBSITE_VISITOR, wantsWebsite } from './fast-path.js';
import { readJsonBody } from './http/body.js';
import type { EngineRoute } from './http/route.js';
import { sendJson, sendNotFoundPage, sendUnavailablePage, sendVisit } from './http/send.js';
import { ENGINE_SLUG_PATTERN, parseCreateEngineLink } from './schema.js';
import type { EngineLinkService } from './service.js';

export interface EngineRoutesDeps {
  links: EngineLinkService;
  authorize: (authorization: string | undefined) => boolean;
  respondToVisit: VisitResponder;
  /** slug -> compiled destination; engine links never change, so an entry never goes stale. */
  cache: LruCache<string, CompiledDestination>;
  loadCompiled: (slug: string) => Promise<CompiledDestination | undefined>;
  /** Answers whether the store is reachable, for /health. */
  ping: () => Promise<void>;
}

/**
 * Every route of self-hosted-engine.md section 4 (and /health), with the 405 and 401 rules checked before
 * the body is read. Throws what the app's error handler answers (EngineError, a store error).
 */
export async function answerRoute(
  route: EngineRoute,
  req: IncomingMessage,
  res: ServerResponse,
  deps: EngineRoutesDeps,
): Promise<void> {
  switch (route.name) {
    case 'health':
      return health(res, deps);
    case 'links': {
      guard(req, 'POST', deps);
      const body = await readBody(req, res);
      // An absent body (no content type, or empty) is not valid JSON either.
      if (body === undefined) throw new EngineError('invalid_json');
      return sendJson(res, 201, await deps.links.create(parseCreateEngineLink(body)));
    }
    case 'link':
      guard(req, 'GET', deps);
      // A slug no link can carry (a NUL, junk) names nothing: 404 before the store sees it.
      if (!ENGINE_SLUG_PATTERN.test(route.slug)) throw new EngineError('not_found');
      return sendJson(res, 200, await deps.links.get(route.slug));
    case 'visit':
      return visit(route.slug, req, res, deps);
    case 'notFound':
      // Fastify read (and so could refuse) a body sent to an unknown path before its 404; kept so.
      await readBody(req, res);
      if (req.url?.startsWith('/api/')) throw new EngineError('not_found');
      return sendNotFoundPage(res);
  }
}

/** The body, or its refusal; a refused body may be partly unread, so the connection closes after it. */
async function readBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  try {
    return await readJsonBody(req);
  } catch (error) {
    res.setHeader('connection', 'close');
    throw error;
  }
}

function guard(req: IncomingMessage, allowed: string, deps: EngineRoutesDeps): void {
  if (req.method !== allowed) throw new EngineError('method_not_allowed');
  if (!deps.authorize(req.headers.authorization)) throw new EngineError('unauthorized');
}

async function health(res: ServerResponse, deps: EngineRoutesDeps): Promise<void> {
  try {
    await deps.ping();
  } catch {
    return sendJson(res, 503, { ok: false });
  }
  return sendJson(res, 200, { ok: true });
}

/** A visit the fast path did not answer: a cache miss, or a path it does not read (`/slug/`, `%61`). */
async function visit(slug: string, req: IncomingMessage, res: ServerResponse, deps: EngineRoutesDeps) {
  let compiled = deps.cache.get(slug);
  if (compiled === undefined) {
    if (!ENGINE_SLUG_PATTERN.test(slug)) return sendNotFoundPage(res);
    try {
      compiled = await deps.loadCompiled(slug);
    } catch {
      // The store cannot be asked: a link that may exist is never reported gone. Links already served
      // stay in the cache (engine links never change), so they keep redirecting meanwhile.
      return sendUnavailablePage(res, UNAVAILABLE_RETRY_AFTER_SECONDS);
    }
    if (compiled === undefined) return sendNotFoundPage(res);
    deps.cache.set(slug, compiled);
  }
  const options = wantsWebsite(req.url) ? { visitor: WEBSITE_VISITOR } : {};
  return sendVisit(req.method, res, deps.respondToVisit(req.headers, compiled, options));
}
