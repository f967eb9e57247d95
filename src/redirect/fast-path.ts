import type { IncomingHttpHeaders } from 'node:http';
import type { VisitResponse } from './respond.js';

/** What the fast path reads of a request: Node's IncomingMessage has it, and so does the redirect front. */
export interface FastRequest {
  method?: string | undefined;
  url?: string | undefined;
  headers: IncomingHttpHeaders;
}

/**
 * The hot path in front of Fastify: a cached link is answered straight from the raw request, without
 * routing, hooks or reply objects. Anything it does not recognise (a cache miss, another route, a
 * password-protected link) answers null and goes to Fastify as usual, which also fills the cache.
 */
export type FastPath = (req: FastRequest) => VisitResponse | null;

export interface FastPathOptions {
  /** Hears of each request the fast path answered, with its status and how long it took (for metrics). */
  answered?: (status: number, seconds: number) => void;
  /** Headers every fast answer carries besides its own (HSTS behind an https BASE_URL). */
  headers?: Readonly<Record<string, string>>;
}

const SLUG_PATH = /^\/[A-Za-z0-9_-]{1,32}$/;

/** The slug of a `GET|HEAD /{slug}` request, or null for anything else. */
export function slugOfRequest(req: FastRequest): string | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  const url = req.url ?? '';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return SLUG_PATH.test(path) ? path.slice(1) : null;
}
