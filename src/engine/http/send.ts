import type { ServerResponse } from 'node:http';
import { renderNotFoundPage, renderUnavailablePage } from '../../core/pages/index.js';
import { type VisitResponse, writeVisitResponse } from '../../redirect/respond.js';

/** A JSON answer with its length, as Fastify serialized a plain object. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function sendPage(
  res: ServerResponse,
  status: number,
  page: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
    'x-content-type-options': 'nosniff',
    'content-length': String(Buffer.byteLength(page)),
  });
  res.end(page);
}

/** The 404 HTML page for people: unknown slugs and unknown paths outside /api/ (src/http/html.ts's twin). */
export function sendNotFoundPage(res: ServerResponse): void {
  sendPage(res, 404, renderNotFoundPage());
}

/** The 503 HTML page: a slug that may exist could not be looked up; `Retry-After` says when to try again. */
export function sendUnavailablePage(res: ServerResponse, retryAfterSeconds: number): void {
  sendPage(res, 503, renderUnavailablePage(), { 'retry-after': String(retryAfterSeconds) });
}

/** A visit answered after a store lookup; a redirect states its empty body's length, as Fastify did. */
export function sendVisit(method: string | undefined, res: ServerResponse, response: VisitResponse): void {
  if (response.body !== undefined) {
    writeVisitResponse(method, res, response);
    return;
  }
  res.writeHead(response.status, { ...response.headers, 'content-length': '0' });
  res.end();
}
