import type { IncomingHttpHeaders } from 'node:http';
import type { ClickInput } from '../analytics/click-buffer.js';
import { cityOf, referrerHostOf } from '../analytics/visit.js';
import type { LinkExpiry } from '../links/expiry.js';
import type { HostedLinkEntry } from './link-cache.js';
import { type Classify, type VisitResponder, type VisitResponse, visitorOf } from './respond.js';

/**
 * The redirect's side of campaign end dates and click limits (issue #20). An expired link is re-pointed,
 * never broken: people, bots and preview fetchers alike get a 302 to its expired URL (no escape page), and
 * the visit is recorded with outcome `expired`. A limited link counts each person's click before serving.
 */

export interface RedirectExpiryDeps {
  classify: Classify;
  respondToVisit: VisitResponder;
  analytics: { record(click: ClickInput): void } | null;
  now: () => number;
  /** The click counter; absent (a test's wiring) means every click goes to the destination. */
  expiry?: Pick<LinkExpiry, 'countClick'>;
}

/** A visit to an expired link: the redirect to its expired URL, recorded with outcome `expired`. */
export function expiredVisit(
  deps: RedirectExpiryDeps,
  headers: IncomingHttpHeaders,
  entry: HostedLinkEntry,
  country: string | null,
): VisitResponse {
  const visitor = visitorOf(headers, deps.classify);
  const destination = entry.link.expiry?.destination ?? entry.link.fallback;
  const response = deps.respondToVisit(headers, destination, { visitor });
  if (deps.analytics !== null && !visitor.prefetch) {
    deps.analytics.record({
      linkId: entry.id,
      orgId: entry.orgId,
      at: deps.now(),
      bot: visitor.bot || visitor.preview,
      variant: null,
      routed: destination.location,
      country,
      city: cityOf(headers),
      device: visitor.os,
      sourceApp: visitor.inApp,
      referrerHost: referrerHostOf(headers),
      platformKey: null,
      tapId: null,
      expired: true,
    });
  }
  return response;
}

/**
 * Counts a person's click on a limited link, exactly across instances: true when the limit had already
 * been reached (the visit goes to the expired URL). Bots, previews and prefetches are never counted.
 */
export async function clickLimitReached(
  deps: RedirectExpiryDeps,
  headers: IncomingHttpHeaders,
  entry: HostedLinkEntry,
): Promise<boolean> {
  const visitor = visitorOf(headers, deps.classify);
  if (!deps.expiry || visitor.bot || visitor.preview || visitor.prefetch) return false;
  return (await deps.expiry.countClick(entry)) === 'expired';
}
