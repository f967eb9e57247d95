import { captureFormAllowed } from '../audience/capture-form.js';
import type { EscapeMatrix } from '../core/escape/index.js';
import { compileLink } from '../core/link-compile.js';
import type { PlatformTable } from '../core/platforms/index.js';
import type { LinkRepo, RedirectRecord } from '../links/repo.js';
import { SLUG_PATTERN } from '../links/schema.js';
import { hasFeature, isTier, type Tier } from '../tenancy/plans.js';
import type { HostedLinkCache, HostedLinkEntry } from './link-cache.js';

export interface LinkLoaderDeps {
  links: Pick<LinkRepo, 'findForRedirect'>;
  table: PlatformTable;
  cache: HostedLinkCache;
  flagsOff: ReadonlySet<string>;
  baseUrl: string;
  /** The escape matrix (ESCAPE_MATRIX_FILE over the built-in cells); absent: the built-in one. */
  escapeMatrix?: EscapeMatrix;
  /** Told once per failed database read (the caller decides whether to log). */
  onLoadError?: (error: unknown) => void;
}

/**
 * A slug that may exist could not be looked up: the database failed and no cache holds the link. The
 * visitor gets a 503 with Retry-After, never a 404: a link that may exist is never reported gone.
 */
export class LinkLookupFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('link lookup failed');
    this.name = 'LinkLookupFailed';
  }
}

/**
 * While the database is away, a link served stale is not asked about again for this long: visits take the
 * fast path instead of each waiting on a failing pool, and the database is tried again soon after.
 */
export const STALE_RETRY_MS = 2000;

/**
 * Loads a hosted link for a visit: the fresh cache entry, else the database (and a copy to Redis), else,
 * when the database fails, the expired entry this instance served before, else the Redis copy another
 * instance wrote. A fresh database answer always wins when the database is up. One database read per
 * (host, slug) at a time: a burst of visits to an expired link waits on the same read.
 */
export function createLinkLoader(deps: LinkLoaderDeps) {
  const reading = new Map<string, Promise<HostedLinkEntry | undefined>>();

  async function read(host: string, slug: string): Promise<HostedLinkEntry | undefined> {
    let record: RedirectRecord | undefined;
    try {
      record = await deps.links.findForRedirect(host, slug);
    } catch (error) {
      deps.onLoadError?.(error);
      const stale = deps.cache.getStale(host, slug);
      if (stale) {
        deps.cache.set(stale, STALE_RETRY_MS);
        return stale;
      }
      const copy = await deps.cache.loadRecord(host, slug);
      if (!copy) throw new LinkLookupFailed(error);
      const entry = entryOf(deps, host, slug, copy);
      deps.cache.set(entry, STALE_RETRY_MS);
      return entry;
    }
    if (!record) return undefined;
    const entry = entryOf(deps, host, slug, record);
    deps.cache.set(entry);
    deps.cache.saveRecord(host, slug, record);
    return entry;
  }

  return async function loadLink(host: string, slug: string): Promise<HostedLinkEntry | undefined> {
    const cached = deps.cache.get(host, slug);
    if (cached) return cached;
    if (!SLUG_PATTERN.test(slug)) return undefined;
    const key = `${host}\n${slug}`;
    let pending = reading.get(key);
    if (!pending) {
      pending = read(host, slug).finally(() => reading.delete(key));
      reading.set(key, pending);
    }
    return pending;
  };
}

/** A redirect record compiled for visits: branding, pixels and fallback as its organization's plan allows. */
export function entryOf(
  deps: Pick<LinkLoaderDeps, 'table' | 'flagsOff' | 'baseUrl' | 'escapeMatrix'>,
  host: string,
  slug: string,
  record: RedirectRecord,
): HostedLinkEntry {
  const tier = isTier(record.tier) ? record.tier : 'sidekick';
  const rich = hasFeature(tier, 'richFallback');
  const origin = host === '' ? deps.baseUrl : `https://${host}`;
  return {
    id: record.id,
    orgId: record.orgId,
    host,
    slug,
    branded: !hasFeature(tier, 'removeBranding'),
    recorded: !record.orgDeletedAt,
    passwordHash: record.passwordHash,
    pixels: hasFeature(tier, 'pixelInjection') ? record.pixels : [],
    fallback: rich
      ? {
          preview: record.preview,
          capture: captureFormAllowed({
            tier,
            flagsOff: deps.flagsOff,
            captureEmails: record.captureEmails,
            host,
          })
            ? { orgName: record.orgName }
            : null,
        }
      : null,
    link: compileLink(deps.table, powersOf(record, tier), {
      // With richFallback, Android lands on our fallback page when the app cannot take the hand-off.
      ...(rich ? { fallbackUrl: `${origin}/_fallback/${slug}` } : {}),
      // The iOS bounce to Safari comes back to the link itself (with esc=1).
      selfUrl: `${origin}/${slug}`,
      // Redirects to the destination on every plan (the rich page on richFallback): the short way to the
      // website for pages whose destination is too long to carry twice.
      via: `${origin}/_fallback/${slug}`,
      ...(deps.escapeMatrix ? { matrix: deps.escapeMatrix } : {}),
    }),
  };
}

/**
 * What the link sends visitors to. While its destination is down (destination health, issue #33) a link
 * with a fallback URL re-points there, on the plans that route; it comes back by itself once the checker
 * finds the destination up, and the switch drops the compiled link everywhere (the checker invalidates it).
 */
function powersOf(record: RedirectRecord, tier: Tier): RedirectRecord {
  const down = record.health?.state === 'down';
  if (!down || !record.fallbackUrl || !hasFeature(tier, 'platformTargeting')) return record;
  return { ...record, destination: record.fallbackUrl };
}
