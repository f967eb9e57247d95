import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';
import { sendNotFoundPage } from '../http/html.js';
import { contentResponse } from '../http/schemas.js';
import type { Store } from '../store/database.js';
import { createBroadcastRepo } from './repo.js';
import { hashToken } from './worker.js';

/**
 * `/u/{token}`: the unsubscribe link of every broadcast email. GET only shows a confirmation page (link
 * scanners and previews follow GETs); POST, from the page's button or a mail client's RFC 8058 one-click,
 * unsubscribes. The token is opaque and only its hash is stored, on the recipient row it was mailed to.
 */

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,100}$/;

export function createUnsubscribeService(deps: { store: Store; now: () => Date }) {
  const repo = createBroadcastRepo(deps.store);
  const find = async (token: string) => {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    return repo.recipientByTokenHash(hashToken(token));
  };
  return {
    /** Null for an unknown token; otherwise whether the contact is already unsubscribed. */
    async status(token: string): Promise<{ unsubscribed: boolean } | null> {
      const row = await find(token);
      return row ? { unsubscribed: row.unsubscribed_at !== null || row.contact_id === null } : null;
    },
    /** False for an unknown token. Idempotent: the first unsubscribe time is kept. */
    async unsubscribe(token: string): Promise<boolean> {
      const row = await find(token);
      if (!row) return false;
      if (row.contact_id !== null) {
        await repo.unsubscribeContact(row.contact_id, deps.now().toISOString());
      }
      return true;
    },
  };
}

export type UnsubscribeService = ReturnType<typeof createUnsubscribeService>;

const CSS =
  'body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;' +
  'font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f5f7;color:#111}' +
  'main{max-width:24rem;padding:1.5rem;text-align:center}button{padding:.8rem 1.4rem;border:0;border-radius:.6rem;' +
  'background:#111;color:#fff;font:inherit;font-weight:600;cursor:pointer}';

function page(nonce: string, title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title><style nonce="${escapeAttr(nonce)}">${CSS}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
  );
}

function sendPage(reply: FastifyReply, nonce: string, html: string): FastifyReply {
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    )
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .send(html);
}

const DONE = '<p>You are unsubscribed and will not receive these emails again.</p>';

/** Register at the root, outside the dashboard's CSRF guard: mail providers POST here cross-site. */
export async function unsubscribeRoutes(
  app: FastifyInstance,
  deps: { unsubscribe: UnsubscribeService },
): Promise<void> {
  // The one-click body is `List-Unsubscribe=One-Click` (form encoded); no body is needed, so any is accepted.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4096 }, (_req, _body, done) =>
    done(null, null),
  );
  const nonce = () => randomBytes(16).toString('base64');

  const params = z.object({ token: z.string().max(200).describe('the opaque token of the email') });
  const doc = (operationId: string, summary: string, description: string) => ({
    schema: {
      operationId,
      summary,
      tags: ['broadcasts'],
      security: [],
      params,
      description,
      produces: ['text/html'],
      response: {
        200: contentResponse('The page', 'text/html'),
        404: contentResponse('No such token', 'text/html'),
      },
    },
  });

  app.get<{ Params: { token: string } }>(
    '/u/:token',
    doc(
      'unsubscribePage',
      'Show the unsubscribe page',
      'HTML confirmation page whose button POSTs to the same address; changes nothing.',
    ),
    async (request, reply) => {
      const state = await deps.unsubscribe.status(request.params.token);
      if (!state) return sendNotFoundPage(reply);
      const n = nonce();
      if (state.unsubscribed) return sendPage(reply, n, page(n, 'Unsubscribed', DONE));
      return sendPage(
        reply,
        n,
        page(
          n,
          'Unsubscribe?',
          '<p>Stop receiving these emails?</p><form method="post"><button type="submit">Unsubscribe</button></form>',
        ),
      );
    },
  );

  app.post<{ Params: { token: string } }>(
    '/u/:token',
    doc(
      'unsubscribe',
      'Unsubscribe (the RFC 8058 one-click target)',
      'Unsubscribes the contact (also the RFC 8058 one-click target); 200 HTML; 404 unknown token.',
    ),
    async (request, reply) => {
      if (!(await deps.unsubscribe.unsubscribe(request.params.token))) return sendNotFoundPage(reply);
      const n = nonce();
      return sendPage(reply, n, page(n, 'Unsubscribed', DONE));
    },
  );
}
