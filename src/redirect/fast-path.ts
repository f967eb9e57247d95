import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';

/**
 * The hot path in front of Fastify: a cached link is answered straight from the raw request, without
 * routing, hooks or reply objects. Anything it does not recognise (a cache miss, another route, a
 * password-protected link) returns false and goes to Fastify as usual, which also fills the cache.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

const SLUG_PATH = /^\/[A-Za-z0-9_-]{1,32}$/;

/** The slug of a `GET|HEAD /{slug}` request, or null for anything else. */
export function slugOfRequest(req: IncomingMessage): string | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  const url = req.url ?? '';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return SLUG_PATH.test(path) ? path.slice(1) : null;
}

/**
 * A Fastify `serverFactory` that tries the fast path first. `answered` hears of each request the fast path
 * answered, with its status and how long it took (for metrics: Fastify's hooks never see these).
 */
export function serverWithFastPath(fastPath: FastPath, answered?: (status: number, seconds: number) => void) {
  return (handler: RequestListener): Server =>
    createServer((req, res) => {
      const started = answered ? performance.now() : 0;
      let handled = false;
      try {
        handled = fastPath(req, res);
      } catch {
        // Never fail a visit on the fast path: Fastify answers it the slow way, with its error handling.
        handled = res.headersSent;
      }
      if (!handled) handler(req, res);
      else answered?.(res.statusCode, (performance.now() - started) / 1000);
    });
}
