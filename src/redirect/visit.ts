/* A visit to a cached or loaded hosted link, and the fast path in front of Fastify that answers most of them. */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { ClickInput } from '../analytics/click-buffer.js';
import type { TapConstant, TapPrefix, TapVisit } from '../analytics/tap-tokens.js';
import { cityOf, isoTimeOf, referrerHostOf } from '../analytics/visit.js';
import type { EscapeStrategy } from '../core/escape/index.js';
import { chooseDestination, expiryStateOf } from '../core/link-compile.js';
import type { PlatformTable } from '../core/platforms/index.js';
import type { Visitor } from '../core/visitor.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { LinkRepo } from '../links/repo.js';
import { expiredVisit, type RedirectExpiryDeps } from './expiry.js';
import { type FastPath, slugOfRequest } from './fast-path.js';
import type { HostedLinkCache, HostedLinkEntry } from './link-cache.js';
import type { PasswordCookies } from './password-gate.js';
import { type VisitResponder, type VisitResponse, visitorOf } from './respond.js';

export interface HostedRedirectDeps extends RedirectExpiryDeps {
  links: Pick<LinkRepo, 'findForRedirect'>;
  table: PlatformTable;
  respondToVisit: VisitResponder;
  classify: (userAgent: string | undefined, purpose?: string) => Visitor;
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
  /** Analytics: every visit recorded off the request path; escape pages carry a tap token. Null when off. */
  analytics: {
    record(click: ClickInput): void;
    /** What a cell's tokens share, encoded once per compiled page. */
    tapPrefix(constant: TapConstant): TapPrefix;
    issueTap(prefix: TapPrefix, visit: TapVisit): string;
    newTapId(): string;
  } | null;
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

/** A visit to a loaded link: its destination for this visitor, then the redirect or the escape page. */
export function visitEntry(
  deps: HostedRedirectDeps,
  headers: IncomingHttpHeaders,
  entry: HostedLinkEntry,
): VisitResponse {
  const visitor = visitorOf(headers, deps.classify);
  const country = countryOf(headers[deps.geoHeader]);
  const at = deps.now();
  const choice = chooseDestination(entry.link, {
    os: visitor.os,
    country,
    nowSeconds: Math.floor(at / 1000),
    random: deps.random,
  });
  const analytics = deps.analytics;
  if (analytics === null || visitor.prefetch || !entry.recorded) {
    return deps.respondToVisit(headers, choice.destination, {
      branded: entry.branded,
      visitor,
      pixels: entry.pixels,
    });
  }
  const city = cityOf(headers);
  const device = visitor.os;
  let tapId: string | null = null;
  let strategy: EscapeStrategy | null = null;
  const response = deps.respondToVisit(headers, choice.destination, {
    branded: entry.branded,
    visitor,
    pixels: entry.pixels,
    tap: {
      reportUrl: TAP_REPORT_PATH,
      issue: (target, used, memo) => {
        tapId = analytics.newTapId();
        strategy = used;
        // What the page's cell shares is encoded on its first visit and kept with the page.
        memo.tapPrefix ??= analytics.tapPrefix({
          linkId: entry.id,
          orgId: entry.orgId,
          slug: entry.slug,
          shortHost: entry.host === '' ? deps.defaultHost : entry.host,
          platformKey: target.platformKey,
          sourceApp: visitor.inApp,
          device,
          strategy: used,
        });
        return analytics.issueTap(memo.tapPrefix, {
          tapId,
          country,
          city,
          ts: isoTimeOf(at),
          variant: choice.variant,
        });
      },
    },
  });
  // Recorded after the response is built, so the click carries the tap id when a page was served.
  analytics.record({
    linkId: entry.id,
    orgId: entry.orgId,
    at,
    bot: visitor.bot || visitor.preview,
    variant: choice.variant,
    routed: choice.source === 'default' ? null : choice.destination.location,
    country,
    city,
    device,
    sourceApp: visitor.inApp,
    referrerHost: referrerHostOf(headers),
    platformKey: choice.destination.target?.platformKey ?? null,
    tapId,
    strategy,
  });
  return response;
}

/** Cached, unprotected links answered before Fastify; everything else takes the routes (hosted-routes.ts). */
export function createHostedFastPath(deps: HostedRedirectDeps): FastPath {
  return (req) => {
    const slug = slugOfRequest(req);
    if (slug === null) return null;
    const entry = deps.cache.get(deps.cache.lookupHost(req.headers.host), slug);
    if (entry === undefined) return null;
    // Expired links are answered here too; a limited one counts its clicks asynchronously, in the routes.
    const expiry = entry.link.expiry === null ? 'open' : expiryStateOf(entry.link, deps.now());
    if (expiry === 'expired') {
      const country = countryOf(req.headers[deps.geoHeader]);
      return expiredVisit(deps, req.headers, entry, country);
    }
    if (entry.passwordHash !== null || expiry === 'counted') return null;
    return visitEntry(deps, req.headers, entry);
  };
}

/** The visitor's country from the configured geo header (two letters), or null. */
export function countryOf(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const upper = text.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(upper) ? upper : null;
}
