import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderCaptureForm } from '../audience/capture-form.js';
import { chooseDestination, expiryStateOf } from '../core/link-compile.js';
import { fallbackPageCsp, renderFallbackPage } from '../core/pages/fallback-page.js';
import { passwordPageCsp, renderPasswordPage } from '../core/pages/password-page.js';
import { readCookie } from '../http/cookies.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { sendNotFoundPage, sendUnavailablePage } from '../http/html.js';
import { contentResponse, emptyResponse } from '../http/schemas.js';
import { isConnectionError } from '../store/db-errors.js';
import { clickLimitReached, expiredVisit } from './expiry.js';
import type { HostedLinkEntry } from './link-cache.js';
import { createLinkLoader, LinkLookupFailed } from './link-loader.js';
import { passwordCookieName } from './password-gate.js';
import { sendVisitResponse, visitorOf } from './respond.js';

import { countryOf, type HostedRedirectDeps, visitEntry } from './visit.js';

export { createHostedFastPath, type HostedRedirectDeps, visitEntry } from './visit.js';

type SlugRequest = FastifyRequest<{ Params: { slug: string } }>;

/** What the OpenAPI document says of the short links themselves (documentation only: nothing here validates). */
const html = (description: string) => contentResponse(description, 'text/html');
const VISIT_DOC = {
  operationId: 'visitLink',
  summary: 'Visit a short link',
  tags: ['redirect'],
  security: [],
  response: {
    200: html('The escape page (a phone in an in-app browser) or the password form'),
    302: emptyResponse('To the destination chosen for this visitor'),
    404: html('No such link'),
    503: html('The database is away; retry after Retry-After seconds'),
  },
};
const FALLBACK_DOC = {
  operationId: 'getFallbackPage',
  summary: "Show a link's rich fallback page",
  tags: ['redirect'],
  security: [],
  response: {
    200: html('The fallback page, or the password form'),
    302: emptyResponse('To the destination, when the plan has no rich fallback'),
    404: html('No such link'),
  },
};
const UNLOCK_DOC = {
  operationId: 'unlockLink',
  summary: 'Unlock a password-protected link',
  tags: ['redirect'],
  security: [],
  description: 'A form post `password=...`; success sets a cookie scoped to the link and redirects to it.',
  response: {
    303: emptyResponse('Unlocked: back to the link with its cookie'),
    401: html('Wrong password: the form again'),
    404: html('No such link, or it has no password'),
    429: html('Too many attempts: the form again, with Retry-After'),
  },
};

/**
 * `GET /{slug}` on the default host and on custom hostnames, and the password form's POST. No hooks: this
 * is the hot path. A hit does no database read; archived and read-only links resolve like any other.
 */
export async function hostedRedirectRoutes(app: FastifyInstance, deps: HostedRedirectDeps): Promise<void> {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  const loadLink = createLinkLoader({
    ...deps,
    // An outage is logged once by the pool's health tracker; anything else failing a load is a bug.
    onLoadError: (error) => {
      if (!isConnectionError(error)) app.log.error({ err: error }, 'link load failed');
    },
  });
  function load(request: SlugRequest): Promise<HostedLinkEntry | undefined> {
    return loadLink(deps.cache.lookupHost(request.headers.host), request.params.slug);
  }

  // A slug that may exist but could not be looked up: 503 with Retry-After, never the 404 page.
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof LinkLookupFailed) return sendUnavailablePage(reply, UNAVAILABLE_RETRY_AFTER_SECONDS);
    throw error;
  });

  function sendPasswordForm(
    reply: FastifyReply,
    entry: HostedLinkEntry,
    status: number,
    error?: 'wrong' | 'too_many',
  ) {
    const nonce = deps.nonce();
    return reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', passwordPageCsp(nonce, { pixels: entry.pixels.length > 0 }))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(
        renderPasswordPage({
          action: `/${entry.slug}`,
          nonce,
          error: error ?? null,
          branded: entry.branded,
          pixels: entry.pixels,
        }),
      );
  }

  app.get<{ Params: { slug: string } }>('/:slug', { schema: VISIT_DOC }, async (request, reply) => {
    const unclaimed = deps.unclaimed?.get(request.params.slug);
    let entry: HostedLinkEntry | undefined;
    try {
      entry = await load(request);
    } catch (error) {
      if (unclaimed && error instanceof LinkLookupFailed) return unclaimed(reply);
      throw error;
    }
    if (!entry) return unclaimed ? unclaimed(reply) : sendNotFoundPage(reply);
    // Expiry (issue #20): an expired link re-points everyone, before any password; a limited one counts
    // a person's click after the password gate, since only a visit that reaches the destination counts.
    const expiry = expiryStateOf(entry.link, deps.now());
    const expired = () =>
      expiredVisit(deps, request.headers, entry, countryOf(request.headers[deps.geoHeader]));
    if (expiry === 'expired') return sendVisitResponse(reply, expired());
    if (entry.passwordHash !== null) {
      const cookie = readCookie(request.headers.cookie, passwordCookieName(entry.id));
      if (!deps.passwordCookies.verify(entry.id, entry.passwordHash, cookie))
        return sendPasswordForm(reply, entry, 200);
    }
    if (expiry === 'counted' && (await clickLimitReached(deps, request.headers, entry)))
      return sendVisitResponse(reply, expired());
    return sendVisitResponse(reply, visitEntry(deps, request.headers, entry));
  });

  // The rich fallback page: the Android intent's browser fallback, for plans with richFallback. Without
  // it (or after a downgrade) the same address simply redirects, so a fallback URL never breaks.
  app.get<{ Params: { slug: string } }>(
    '/_fallback/:slug',
    { schema: FALLBACK_DOC },
    async (request, reply) => {
      const entry = await load(request);
      if (!entry) return sendNotFoundPage(reply);
      const expired = entry.link.expiry?.destination;
      if (expired && expiryStateOf(entry.link, deps.now()) === 'expired')
        return sendVisitResponse(reply, deps.respondToVisit(request.headers, expired));
      if (entry.passwordHash !== null) {
        const cookie = readCookie(request.headers.cookie, passwordCookieName(entry.id));
        if (!deps.passwordCookies.verify(entry.id, entry.passwordHash, cookie))
          return sendPasswordForm(reply, entry, 200);
      }
      const visitor = visitorOf(request.headers, deps.classify);
      const choice = chooseDestination(entry.link, {
        os: visitor.os,
        country: countryOf(request.headers[deps.geoHeader]),
        nowSeconds: Math.floor(deps.now() / 1000),
        random: deps.random,
      });
      const destination = choice.destination.location;
      if (entry.fallback === null) {
        return reply
          .code(302)
          .header('location', destination)
          .header('cache-control', 'private, max-age=0')
          .send();
      }
      const nonce = deps.nonce();
      return reply
        .code(200)
        .header('content-type', 'text/html; charset=utf-8')
        .header(
          'content-security-policy',
          fallbackPageCsp(nonce, {
            pixels: entry.pixels.length > 0,
            capture: entry.fallback.capture !== null,
          }),
        )
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send(
          renderFallbackPage({
            nonce,
            destination,
            preview: entry.fallback.preview,
            branded: entry.branded,
            pixels: entry.pixels,
            ...(entry.fallback.capture
              ? {
                  captureForm: renderCaptureForm({
                    slug: entry.slug,
                    orgName: entry.fallback.capture.orgName,
                    nonce,
                  }),
                }
              : {}),
          }),
        );
    },
  );

  app.post<{ Params: { slug: string }; Body: unknown }>(
    '/:slug',
    { schema: UNLOCK_DOC },
    async (request, reply) => {
      const entry = await load(request);
      if (!entry || entry.passwordHash === null) return sendNotFoundPage(reply);
      const attempt = await deps.passwordAttempts.hit(`${entry.id}:${request.ip}`);
      const linkWide = attempt.allowed ? await deps.passwordFailures.peek(entry.id) : attempt;
      if (!attempt.allowed || !linkWide.allowed) {
        reply.header('retry-after', String(Math.max(attempt.resetSeconds, linkWide.resetSeconds)));
        return sendPasswordForm(reply, entry, 429, 'too_many');
      }
      const body = request.body as { password?: unknown } | undefined;
      const password = typeof body?.password === 'string' ? body.password : '';
      if (!password || !(await deps.verifyPassword(password, entry.passwordHash))) {
        await deps.passwordFailures.hit(entry.id);
        return sendPasswordForm(reply, entry, 401, 'wrong');
      }
      const cookie = [
        `${passwordCookieName(entry.id)}=${deps.passwordCookies.issue(entry.id, entry.passwordHash)}`,
        `Path=/${entry.slug}`,
        `Max-Age=${deps.passwordCookies.maxAge}`,
        'HttpOnly',
        'SameSite=Lax',
        ...(deps.secureCookies ? ['Secure'] : []),
      ].join('; ');
      return reply.code(303).header('set-cookie', cookie).header('location', `/${entry.slug}`).send();
    },
  );
}
