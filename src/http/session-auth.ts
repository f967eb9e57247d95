import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appError } from '../errors.js';
import { type SessionContext, sessionOrgContext } from '../tenancy/context.js';
import { authorize } from './authorize.js';
import { httpOnlyCookie, readCookie } from './cookies.js';

export const SESSION_COOKIE = 'lh_session';
const SESSION_MAX_AGE = 30 * 86_400;

declare module 'fastify' {
  interface FastifyRequest {
    /** The logged-in dashboard user; null outside /api or before authentication. */
    user: { id: string; email: string } | null;
    /** The whole dashboard session (role, organizations); null outside /api or before authentication. */
    session: SessionContext | null;
  }
}

export function sessionCookie(token: string, secure: boolean): string {
  return httpOnlyCookie(SESSION_COOKIE, token, { path: '/', maxAgeSeconds: SESSION_MAX_AGE, secure });
}

export function clearedSessionCookie(secure: boolean): string {
  return httpOnlyCookie(SESSION_COOKIE, '', { path: '/', maxAgeSeconds: 0, secure });
}

export function sessionTokenOf(request: FastifyRequest): string | undefined {
  return readCookie(request.headers.cookie, SESSION_COOKIE);
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * CSRF for the dashboard. Every mutating call, with a body or without, must show it comes from our own
 * pages: `content-type: application/json` (a cross-site form cannot send it, and a cross-site fetch that
 * does needs a CORS preflight we never grant), or a same-origin `Origin`, or `Sec-Fetch-Site: same-origin`.
 * A cross-site `Origin` or `Sec-Fetch-Site` is refused whatever else the request says, and a body in any
 * type but JSON is refused too.
 */
export function registerCsrfGuard(app: FastifyInstance, baseUrl: string): void {
  const ownOrigin = new URL(baseUrl).origin;
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!MUTATING.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) throw appError('csrf');
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') throw appError('csrf');
    const json = /^application\/json\b/i.test(request.headers['content-type'] ?? '');
    const hasBody =
      (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0') ||
      request.headers['transfer-encoding'] !== undefined;
    if (hasBody && !json) throw appError('csrf', 'Dashboard calls must send content-type: application/json');
    if (!json && origin !== ownOrigin && site !== 'same-origin') {
      throw appError(
        'csrf',
        'Dashboard calls must send content-type: application/json or come from the dashboard’s own origin',
      );
    }
  });
}

/**
 * Sets request.org, request.user and request.session from the session cookie, or answers 401; then the
 * route's declared permission against the person's role in that organization (403 forbidden_role).
 */
export function requireSession(accounts: {
  session(token: string | undefined): Promise<SessionContext | null>;
}) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const session = await accounts.session(sessionTokenOf(request));
    if (!session) throw appError('unauthenticated');
    request.user = session.user;
    request.session = session;
    request.org = sessionOrgContext(session);
    authorize(request, { type: 'user', role: session.role });
  };
}

/** The session of an authenticated dashboard request; the hook guarantees it is set. */
export function sessionOf(request: FastifyRequest): SessionContext {
  if (!request.session) throw appError('unauthenticated');
  return request.session;
}
