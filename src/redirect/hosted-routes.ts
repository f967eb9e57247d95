import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decideVisit, type VisitPurpose } from '../core/resolve.js';
import { qrQueryOf, visitSourceOf } from '../core/visit-source.js';
import { httpOnlyCookie } from '../http/cookies.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/errors.js';
import { sendUnavailablePage } from '../http/html.js';
import { contentResponse, emptyResponse } from '../http/schemas.js';
import { isConnectionError } from '../store/db-errors.js';
import type { HostedLinkEntry } from './link-cache.js';
import { createLinkLoader, LinkLookupFailed } from './link-loader.js';
import { NOT_FOUND, passwordForm } from './link-pages.js';
import { passwordCookieName } from './password-gate.js';
import { sendVisitResponse } from './respond.js';
import { countClick, factsOf, type HostedRedirectDeps, performVisit } from './visit.js';

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

  /** Decides the visit, counts a person's click on a limited link first, and performs it. */
  async function answer(request: SlugRequest, entry: HostedLinkEntry | undefined, purpose: VisitPurpose) {
    const facts = factsOf(deps, request.headers, entry, request.url);
    let decision = decideVisit(entry, facts, purpose, deps);
    if (decision.kind === 'count-click' && entry !== undefined)
      decision = decideVisit(entry, await countClick(deps, entry, facts), purpose, deps);
    // Counted: the decision now knows whether the limit was reached, and is never count-click again.
    if (decision.kind === 'count-click') throw new Error('a counted click was decided as uncounted');
    return performVisit(deps, request.headers, entry, decision, facts);
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
    if (!entry && unclaimed) return unclaimed(reply);
    return sendVisitResponse(reply, await answer(request, entry, 'visit'));
  });

  // The rich fallback page: the Android intent's browser fallback, for plans with richFallback. Without
  // it (or after a downgrade) the same address simply redirects, so a fallback URL never breaks.
  app.get<{ Params: { slug: string } }>(
    '/_fallback/:slug',
    { schema: FALLBACK_DOC },
    async (request, reply) =>
      sendVisitResponse(reply, await answer(request, await load(request), 'fallback')),
  );

  app.post<{ Params: { slug: string }; Body: unknown }>(
    '/:slug',
    { schema: UNLOCK_DOC },
    async (request, reply) => {
      const entry = await load(request);
      if (!entry || entry.passwordHash === null) return sendVisitResponse(reply, NOT_FOUND);
      const source = visitSourceOf(request.url);
      const attempt = await deps.passwordAttempts.hit(`${entry.id}:${request.ip}`);
      const linkWide = attempt.allowed ? await deps.passwordFailures.peek(entry.id) : attempt;
      if (!attempt.allowed || !linkWide.allowed) {
        reply.header('retry-after', String(Math.max(attempt.resetSeconds, linkWide.resetSeconds)));
        return sendVisitResponse(reply, passwordForm(deps, entry, 429, source, 'too_many'));
      }
      const body = request.body as { password?: unknown } | undefined;
      const password = typeof body?.password === 'string' ? body.password : '';
      if (!password || !(await deps.verifyPassword(password, entry.passwordHash))) {
        await deps.passwordFailures.hit(entry.id);
        return sendVisitResponse(reply, passwordForm(deps, entry, 401, source, 'wrong'));
      }
      const cookie = httpOnlyCookie(
        passwordCookieName(entry.id),
        deps.passwordCookies.issue(entry.id, entry.passwordHash),
        { path: `/${entry.slug}`, maxAgeSeconds: deps.passwordCookies.maxAge, secure: deps.secureCookies },
      );
      return reply
        .code(303)
        .header('set-cookie', cookie)
        .header('location', `/${entry.slug}${qrQueryOf(source)}`)
        .send();
    },
  );
}
