import type { LruCache } from '../core/lru-cache.js';
import type { CompiledDestination } from '../core/resolve.js';
import type { FastPath } from '../redirect/fast-path.js';
import { slugOfRequest } from '../redirect/fast-path.js';
import { type VisitResponder, writeVisitResponse } from '../redirect/respond.js';

/** Cached engine links answered before Fastify; /health stays Fastify's (an engine slug may be "health"). */
export function createEngineFastPath(deps: {
  cache: LruCache<string, CompiledDestination>;
  respondToVisit: VisitResponder;
}): FastPath {
  return (req, res) => {
    const slug = slugOfRequest(req);
    if (slug === null || slug === 'health') return false;
    const compiled = deps.cache.get(slug);
    if (compiled === undefined) return false;
    writeVisitResponse(req.method, res, deps.respondToVisit(req.headers, compiled));
    return true;
  };
}
