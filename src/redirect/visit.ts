/* The one performer of hosted visits: it acts on core/resolve.ts's decision, and is the only place a click or a tap token is recorded. */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { ClickInput } from '../analytics/write/click-buffer.js';
import type { TapConstant, TapPrefix, TapVisit } from '../analytics/write/tap-tokens.js';
import { cityOf, isoTimeOf, referrerHostOf } from '../analytics/write/visit.js';
import type { CompiledDestination } from '../core/destination.js';
import type { EscapeStrategy } from '../core/escape/index.js';
import type { ChooseStrategy } from '../core/pages/escape-plan.js';
import type { PlatformTable } from '../core/platforms/index.js';
import { type Choice, decideVisit, type LinkVisit, type VisitFacts } from '../core/resolve.js';
import { visitSourceOf } from '../core/visit-source.js';
import { readCookie } from '../http/cookies.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { LinkExpiry } from '../links/expiry.js';
import type { LinkRepo } from '../links/repo.js';
import { type FastPath, slugOfRequest } from './fast-path.js';
import type { HostedLinkCache, HostedLinkEntry } from './link-cache.js';
import { fallbackPage, NOT_FOUND, passwordForm } from './link-pages.js';
import { type PasswordCookies, passwordCookieName } from './password-gate.js';
import { type Classify, type VisitResponder, type VisitResponse, visitorOf } from './respond.js';

export interface HostedRedirectDeps {
  links: Pick<LinkRepo, 'findForRedirect'>;
  table: PlatformTable;
  respondToVisit: VisitResponder;
  classify: Classify;
  cache: HostedLinkCache;
  geoHeader: string;
  secureCookies: boolean;
  passwordCookies: PasswordCookies;
  verifyPassword: (password: string, hash: string) => Promise<boolean>;
  /** Password attempts, counted per link and address. */
  passwordAttempts: RateLimiter;
  /** Wrong passwords per link from every address together: a cap that rotating addresses cannot escape. */
  passwordFailures: RateLimiter;
  nonce: () => string;
  flagsOff: ReadonlySet<string>;
  /** The bandit's choice among a cell's strategies, per destination platform (escape-choice.ts). */
  chooseFor?: (platformKey: string) => ChooseStrategy;
  /** Analytics: every visit recorded off the request path; escape pages carry a tap token. Null when off. */
  analytics: {
    record(click: ClickInput): void;
    /** What a cell's tokens share, encoded once per compiled page. */
    tapPrefix(constant: TapConstant): TapPrefix;
    issueTap(prefix: TapPrefix, visit: TapVisit): string;
    newTapId(): string;
  } | null;
  /** The click counter of limited links; absent (a test's wiring) means every click goes to the destination. */
  expiry?: Pick<LinkExpiry, 'countClick'>;
  /** Origin of the default host (BASE_URL), for the fallback page's absolute address. */
  baseUrl: string;
  /** The BASE_URL host, the tap context's shortHost for default-host links. */
  defaultHost: string;
  now: () => number;
  random: () => number;
  /**
   * What a slug's address serves when no link claims it (`/metrics`): a link published under that slug
   * before it was reserved keeps redirecting. While the database is away the address is served too.
   */
  unclaimed?: ReadonlyMap<string, (reply: FastifyReply) => unknown>;
}

/** Where escape pages beacon their outcome (decisions.md, "Tap outcomes"). */
const TAP_REPORT_PATH = '/api/public/tap';

/**
 * What the decision reads of a request: the visitor, the country, the time, the password cookie, and the
 * QR marker of its URL (recorded as the click's source).
 */
export function factsOf(
  deps: HostedRedirectDeps,
  headers: IncomingHttpHeaders,
  entry: HostedLinkEntry | undefined,
  url: string | undefined,
): VisitFacts {
  const passwordHash = entry?.passwordHash ?? null;
  return {
    source: visitSourceOf(url),
    visitor: visitorOf(headers, deps.classify),
    country: countryOf(headers[deps.geoHeader]),
    nowMs: deps.now(),
    random: deps.random,
    unlocked:
      entry !== undefined &&
      passwordHash !== null &&
      deps.passwordCookies.verify(
        entry.id,
        passwordHash,
        readCookie(headers.cookie, passwordCookieName(entry.id)),
      ),
  };
}

/**
 * Counts a person's click on a limited link, exactly across instances, into the facts: the decision is
 * then taken again and re-points the visit when the limit had already been reached.
 */
export async function countClick(
  deps: HostedRedirectDeps,
  entry: HostedLinkEntry,
  facts: VisitFacts,
): Promise<VisitFacts> {
  facts.limitReached = deps.expiry ? (await deps.expiry.countClick(entry)) === 'expired' : false;
  return facts;
}

/** The response to a decided visit, and its click (and tap token) recorded off the request path. */
export function performVisit(
  deps: HostedRedirectDeps,
  headers: IncomingHttpHeaders,
  entry: HostedLinkEntry | undefined,
  decision: Exclude<LinkVisit, { kind: 'count-click' }>,
  facts: VisitFacts,
): VisitResponse {
  if (decision.kind === 'not-found' || entry === undefined) return NOT_FOUND;
  const responder = deps.respondToVisit;
  switch (decision.kind) {
    case 'password':
      return passwordForm(deps, entry, 200, facts.source);
    case 'fallback':
      return entry.fallback === null
        ? responder.redirect(decision.choice.destination)
        : fallbackPage(deps, entry, entry.fallback, decision.choice.destination.location);
    case 'expired': {
      const response = responder.redirect(decision.destination);
      if (decision.record) recordClick(deps, headers, entry, facts, decision.destination, null, null, null);
      return response;
    }
    case 'redirect': {
      const response = responder.redirect(decision.choice.destination);
      if (decision.record) recordClick(deps, headers, entry, facts, null, decision.choice, null, null);
      return response;
    }
    case 'escape': {
      const { choice, plan } = decision;
      const analytics = decision.record ? deps.analytics : null;
      const page = responder.escapePage(choice.destination, facts.visitor, decision, {
        branded: entry.branded,
        pixels: entry.pixels,
        tapReportUrl: analytics === null ? null : TAP_REPORT_PATH,
      });
      if (analytics === null) return responder.fill(page, undefined);
      const tapId = analytics.newTapId();
      // What the page's cell shares is encoded on its first visit and kept with the page.
      page.memo.tapPrefix ??= analytics.tapPrefix({
        linkId: entry.id,
        orgId: entry.orgId,
        slug: entry.slug,
        shortHost: entry.host === '' ? deps.defaultHost : entry.host,
        platformKey: decision.target.platformKey,
        sourceApp: facts.visitor.inApp,
        device: facts.visitor.os,
        strategy: plan.strategy,
      });
      const city = cityOf(headers);
      const token = analytics.issueTap(page.memo.tapPrefix, {
        tapId,
        country: facts.country,
        city,
        ts: isoTimeOf(facts.nowMs),
        variant: choice.variant,
        source: facts.source,
      });
      const response = responder.fill(page, token);
      recordClick(deps, headers, entry, facts, null, choice, tapId, plan.strategy, city);
      return response;
    }
  }
}

/**
 * The one place a click is recorded: a visit to the destination chosen (`choice`), or to an expired link's
 * URL (`expiredTo`, outcome `expired`). Recorded after the response is built, so an escape page's click
 * carries its tap id.
 */
function recordClick(
  deps: HostedRedirectDeps,
  headers: IncomingHttpHeaders,
  entry: HostedLinkEntry,
  facts: VisitFacts,
  expiredTo: CompiledDestination | null,
  choice: Choice | null,
  tapId: string | null,
  strategy: EscapeStrategy | null,
  city: string | null = cityOf(headers),
): void {
  const analytics = deps.analytics;
  if (analytics === null) return;
  const { visitor } = facts;
  const click: ClickInput = {
    linkId: entry.id,
    orgId: entry.orgId,
    at: facts.nowMs,
    bot: visitor.bot || visitor.preview,
    variant: choice?.variant ?? null,
    routed:
      expiredTo?.location ??
      (choice === null || choice.source === 'default' ? null : choice.destination.location),
    country: facts.country,
    city,
    device: visitor.os,
    sourceApp: visitor.inApp,
    referrerHost: referrerHostOf(headers),
    platformKey: choice?.destination.target?.platformKey ?? null,
    tapId,
    strategy,
  };
  if (expiredTo !== null) click.expired = true;
  if (facts.source === 'qr') click.source = 'qr';
  analytics.record(click);
}

/** Cached links answered before Fastify; a miss, or a click to count first, takes the routes (hosted-routes.ts). */
export function createHostedFastPath(deps: HostedRedirectDeps): FastPath {
  return (req) => {
    const slug = slugOfRequest(req);
    if (slug === null) return null;
    const entry = deps.cache.get(deps.cache.lookupHost(req.headers.host), slug);
    if (entry === undefined) return null;
    const facts = factsOf(deps, req.headers, entry, req.url);
    const decision = decideVisit(entry, facts, 'visit', deps);
    if (decision.kind === 'count-click') return null;
    return performVisit(deps, req.headers, entry, decision, facts);
  };
}

/** The visitor's country from the configured geo header (two letters), or null. */
export function countryOf(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const upper = text.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(upper) ? upper : null;
}
