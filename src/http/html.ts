import type { FastifyReply } from 'fastify';
import { renderNotFoundPage, renderUnavailablePage } from '../core/pages/index.js';

/** The 404 HTML page for people: unknown slugs and unknown paths outside the JSON APIs. */
export function sendNotFoundPage(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(renderNotFoundPage());
}

/** The 503 HTML page: a slug that may exist could not be looked up; `Retry-After` says when to try again. */
export function sendUnavailablePage(reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  return reply
    .code(503)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('retry-after', String(retryAfterSeconds))
    .header('x-content-type-options', 'nosniff')
    .send(renderUnavailablePage());
}
