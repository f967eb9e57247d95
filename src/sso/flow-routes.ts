import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, appError } from '../errors.js';
import { httpOnlyCookie, readCookie } from '../http/cookies.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { errorBodies } from '../http/schemas.js';
import { sessionCookie } from '../http/session-auth.js';
import { callbackQuery, discoverQuery, discoverSchema, startQuery } from './schema.js';
import { SSO_LOGIN_MINUTES, type SsoSignIn } from './sign-in.js';

/** Ties a sign-in to the browser that started it: the callback's `state` must equal it (login CSRF). */
export const SSO_STATE_COOKIE = 'lh_sso_state';
/** The flow's routes, under the dashboard's /api: no slug is ever taken. */
const FLOW_PATH = '/api/sso';

function stateCookie(value: string, maxAge: number, secure: boolean): string {
  // Lax: the provider sends the browser back with a top-level GET, which carries a Lax cookie.
  return httpOnlyCookie(SSO_STATE_COOKIE, value, { path: FLOW_PATH, maxAgeSeconds: maxAge, secure });
}

export interface SsoFlowDeps {
  signIn: SsoSignIn;
  /** Sign-ins started per client address: each one writes a row and asks the provider. */
  starts: RateLimiter;
  secureCookies: boolean;
}

/**
 * "Sign in with SSO": find the organization by the email's domain, go to its provider, come back. GETs
 * only (the browser navigates), so the dashboard's CSRF guard has nothing to say; the state cookie and
 * the state row do that job.
 */
export async function ssoFlowRoutes(app: FastifyInstance, deps: SsoFlowDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { signIn, secureCookies } = deps;
  const config = { permission: 'public' } as const;
  const tags = ['dashboard'];

  r.get(
    '/sso/discover',
    {
      config,
      schema: {
        operationId: 'discoverSso',
        summary: 'Find the single sign-on of an email’s domain',
        tags,
        querystring: discoverQuery,
        response: { 200: discoverSchema, ...errorBodies(400, 404) },
      },
    },
    async (request) => {
      const found = await signIn.discover(request.query.email);
      const start = new URLSearchParams({ org: found.orgId, email: request.query.email });
      return { ...found, startUrl: `${FLOW_PATH}/start?${start}` };
    },
  );

  r.get(
    '/sso/start',
    {
      config,
      schema: {
        operationId: 'startSso',
        summary: 'Go to the organization’s identity provider',
        tags,
        description:
          'Answers 303 to the provider with state, nonce and a PKCE challenge; sets the state cookie.',
        querystring: startQuery,
        response: errorBodies(400, 404, 429),
      },
    },
    async (request, reply) => {
      const attempt = await deps.starts.hit(`sso:${request.ip}`);
      if (!attempt.allowed)
        throw appError('rate_limited', 'Too many sign-ins from this address', {
          retryAfter: attempt.resetSeconds,
        });
      const { url, state } = await signIn.start(request.query.org, request.query.email);
      reply.header('set-cookie', stateCookie(state, SSO_LOGIN_MINUTES * 60, secureCookies));
      return reply.redirect(url, 303);
    },
  );

  r.get(
    '/sso/callback',
    {
      config,
      schema: {
        operationId: 'finishSso',
        summary: 'The identity provider’s redirect back',
        tags,
        description:
          'Checks state (against the cookie, once), exchanges the code with the PKCE verifier, verifies the ' +
          'ID token, then logs in: 303 to the dashboard. A browser that fails is sent to the log-in page ' +
          'with `sso_error=<reason>`; other clients get the error body.',
        querystring: callbackQuery,
        response: errorBodies(400, 403, 404),
      },
    },
    async (request, reply) => {
      const query = request.url.slice(request.url.indexOf('?') + 1);
      const cleared = stateCookie('', 0, secureCookies);
      try {
        const { token } = await signIn.finish(
          request.url.includes('?') ? query : '',
          readCookie(request.headers.cookie, SSO_STATE_COOKIE),
        );
        reply.header('set-cookie', [cleared, sessionCookie(token, secureCookies)]);
        return reply.redirect('/#/', 303);
      } catch (error) {
        if (!(error instanceof AppError) || !/text\/html/.test(request.headers.accept ?? '')) throw error;
        return backToLogin(reply.header('set-cookie', cleared), error);
      }
    },
  );
}

function backToLogin(reply: FastifyReply, error: AppError) {
  const reason = typeof error.extra.reason === 'string' ? error.extra.reason : error.code;
  return reply.redirect(`/#/login?sso_error=${encodeURIComponent(reason)}`, 303);
}
