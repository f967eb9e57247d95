import type { FastifyReply } from 'fastify';
import { renderNotFoundPage } from '../core/pages/index.js';

/** The 404 HTML page for people: unknown slugs and unknown paths outside the JSON APIs. */
export function sendNotFoundPage(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(renderNotFoundPage());
}
