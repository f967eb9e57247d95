import type { CompiledDestination } from '../core/destination.js';
import type { LruCache } from '../core/lru-cache.js';
import type { Visitor } from '../core/visitor.js';
import type { FastPath } from '../redirect/fast-path.js';
import { slugOfRequest } from '../redirect/fast-path.js';
import type { VisitResponder } from '../redirect/respond.js';

/**
 * `/{slug}?web=1`: the escape page's "Continue to website" link when the destination is too long to carry
 * twice in the page. It always gets the redirect, whoever asks.
 */
export const WEB_MARKER = 'web=1';
const WEB_QUERY = /[?&]web=1(?:&|$)/;

/** True when the request asks for the website itself (the WEB_MARKER query). */
export function wantsWebsite(url: string | undefined): boolean {
  return url !== undefined && WEB_QUERY.test(url);
}

/** Anyone asking for the website: resolveVisit answers a visitor that is not a phone with the redirect. */
export const WEBSITE_VISITOR: Visitor = Object.freeze({
  os: 'other',
  mobile: false,
  inApp: null,
  bot: false,
  preview: false,
  prefetch: false,
});

/** Cached engine links answered before Fastify; /health stays Fastify's (an engine slug may be "health"). */
export function createEngineFastPath(deps: {
  cache: LruCache<string, CompiledDestination>;
  respondToVisit: VisitResponder;
}): FastPath {
  return (req) => {
    const slug = slugOfRequest(req);
    if (slug === null || slug === 'health') return null;
    const compiled = deps.cache.get(slug);
    if (compiled === undefined) return null;
    const visit = wantsWebsite(req.url) ? { visitor: WEBSITE_VISITOR } : {};
    return deps.respondToVisit(req.headers, compiled, visit);
  };
}
