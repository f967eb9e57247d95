import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { TapPrefix } from '../analytics/write/tap-tokens.js';
import type { CompiledDestination } from '../core/destination.js';
import type { EscapePlan } from '../core/pages/escape-plan.js';
import { compileEscapePageParts, type PagePixel } from '../core/pages/index.js';
import type { AppTarget } from '../core/platforms/index.js';
import { resolveVisit } from '../core/resolve.js';
import type { Visitor } from '../core/visitor.js';
import { compilePageBytes, type PageBytes } from './page-bytes.js';

export type Classify = (userAgent: string | undefined, purpose?: string) => Visitor;

export interface VisitResponderOptions {
  classify: Classify;
  nonce: () => string;
  /** 301 on the engine (its spec); 302 on the hosted service, whose destinations change. */
  redirectStatus: 301 | 302;
  /**
   * Headers on every redirect besides Location. The engine's 301 may be stored by shared caches, so it
   * says `Vary: User-Agent` (a phone may get the escape page instead); the hosted 302 says
   * `Cache-Control: private, max-age=0`, which no shared cache stores and no browser reuses unasked, so
   * a Vary there would only cost bytes on the hottest response.
   */
  redirectHeaders?: Readonly<Record<string, string>>;
}

/** How an escape page looks: what varies per link besides its destination and the visitor's cell. */
export interface PageLook {
  branded: boolean;
  /** Ad pixels for the page (hosted, pixelInjection only). */
  pixels: readonly PagePixel[];
  /** The page reports its outcome to this address, with the tap token it is filled with (hosted analytics). */
  tapReportUrl: string | null;
}

/** What the tap issuer keeps per compiled page: its tokens' shared prefix (tap-tokens.ts). */
export interface PageMemo {
  tapPrefix?: TapPrefix;
}

/** A compiled escape page and its memo, filled per visit with a nonce and the visit's tap token. */
export interface EscapePage {
  bytes: PageBytes;
  memo: PageMemo;
}

/**
 * A destination's compiled pages, by the visitor's OS and in-app browser, the strategy, then the page's
 * flags as a number: nested maps of strings the tables already hold, so a visit builds no key string.
 */
type PagesByCell = Map<string, Map<string | null, Map<string, Map<number, EscapePage>>>>;

/** An empty level of PagesByCell: one function for every visit, not a closure per lookup. */
const newLevel = <K, V>(): Map<K, V> => new Map();

function levelOf<K, V>(map: Map<K, V>, key: K, make: () => NoInfer<V>): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** Compiled escape pages held by a responder, and the bytes of their texts (for /metrics). */
export interface PageCount {
  entries: number;
  bytes: number;
}

/** A response, independent of who writes it: Fastify's reply, or the raw fast path. */
export interface VisitResponse {
  status: number;
  headers: Record<string, string>;
  /**
   * An escape page as a byte string (one character per byte of its UTF-8: send it as `latin1`), or
   * nothing for a redirect.
   */
  body: string | undefined;
}

/** The visitor of a request, from its User-Agent and its prefetch hints. */
export function visitorOf(headers: IncomingHttpHeaders, classify: Classify): Visitor {
  return classify(headers['user-agent'], (headers['sec-purpose'] ?? headers.purpose) as string | undefined);
}

/**
 * Builds visit responses: the redirect to a destination, and escape pages compiled once per destination,
 * cell, strategy and look, then filled per visit. It decides nothing for hosted links (core/resolve.ts
 * does); for the engine's bare destinations it resolves and builds in one call.
 */
export function createVisitResponder(options: VisitResponderOptions) {
  const { classify, nonce, redirectStatus } = options;
  const redirectHeaders = options.redirectHeaders ?? {};
  // Escape pages compiled to bytes per destination, cell and strategy, on the cell's first visit: a hit
  // only fills in the nonce and the tap token. A compiled link owns its destinations, so the WeakMap lets
  // its pages go with it when the link cache drops or reloads the link.
  const pages = new WeakMap<CompiledDestination, PagesByCell>();
  const redirects = new WeakMap<CompiledDestination, VisitResponse>();
  // Counted when built (once per page, off the hit path) and taken off once the destination holding them
  // is collected, so the count lags a dropped link by a garbage collection.
  const held: PageCount = { entries: 0, bytes: 0 };
  const heldBy = new WeakMap<CompiledDestination, PageCount>();
  const collected = new FinalizationRegistry<PageCount>((gone) => {
    held.entries -= gone.entries;
    held.bytes -= gone.bytes;
  });

  function count(compiled: CompiledDestination, page: PageBytes): PageBytes {
    let own = heldBy.get(compiled);
    if (!own) {
      own = { entries: 0, bytes: 0 };
      heldBy.set(compiled, own);
      collected.register(compiled, own);
    }
    own.entries += 1;
    own.bytes += page.size;
    held.entries += 1;
    held.bytes += page.size;
    return page;
  }

  function pageFor(
    compiled: CompiledDestination,
    visitor: Visitor,
    strategy: string,
    flags: number,
    build: () => PageBytes,
  ): EscapePage {
    let byCell = pages.get(compiled);
    if (!byCell) {
      byCell = new Map();
      pages.set(compiled, byCell);
    }
    const byInApp = levelOf(byCell, visitor.os, newLevel);
    const byStrategy = levelOf(byInApp, visitor.inApp, newLevel);
    const byFlags = levelOf(byStrategy, strategy, newLevel);
    return levelOf(byFlags, flags, (): EscapePage => ({ bytes: count(compiled, build()), memo: {} }));
  }

  /** A redirect to a given destination is always the same response: built once, then shared (read-only). */
  function redirect(compiled: CompiledDestination): VisitResponse {
    let response = redirects.get(compiled);
    if (!response) {
      response = Object.freeze({
        status: redirectStatus,
        headers: Object.freeze({ location: compiled.location, ...redirectHeaders }),
        body: undefined,
      }) as VisitResponse;
      redirects.set(compiled, response);
    }
    return response;
  }

  /** The escape page of a destination for this visitor's cell, its strategy and look: compiled once. */
  function escapePage(
    compiled: CompiledDestination,
    visitor: Visitor,
    decided: { target: AppTarget; plan: EscapePlan },
    look: PageLook,
  ): EscapePage {
    const { branded, pixels, tapReportUrl } = look;
    // The strategy is part of the key: with the bandit, one cell's visitors get pages of several strategies.
    const flags = (branded ? 1 : 0) | (tapReportUrl !== null ? 2 : 0) | (pixels.length << 2);
    return pageFor(compiled, visitor, decided.plan.strategy, flags, () =>
      compilePageBytes(
        compileEscapePageParts({
          target: decided.target,
          plan: decided.plan,
          branded,
          tap: tapReportUrl !== null ? { reportUrl: tapReportUrl } : null,
          pixels,
        }),
      ),
    );
  }

  /** A compiled page filled for one visit: a fresh nonce, and the visit's tap token when it has one. */
  function fill(page: EscapePage, tapToken: string | undefined): VisitResponse {
    const pageNonce = nonce();
    const body = page.bytes.fill(pageNonce, tapToken);
    return {
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': page.bytes.csp(pageNonce),
        'cache-control': 'no-store',
        vary: 'User-Agent',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'strict-origin-when-cross-origin',
        'content-length': String(body.length),
      },
      body,
    };
  }

  /** A visit to a bare destination (the engine's links): the redirect, or the unbranded escape page. */
  function respondToVisit(
    headers: IncomingHttpHeaders,
    compiled: CompiledDestination,
    visit: { visitor?: Visitor } = {},
  ): VisitResponse {
    const visitor = visit.visitor ?? visitorOf(headers, classify);
    const decision = resolveVisit(compiled, visitor);
    if (decision.kind === 'redirect') return redirect(compiled);
    return fill(escapePage(compiled, visitor, decision, ENGINE_LOOK), undefined);
  }
  return Object.assign(respondToVisit, {
    redirect,
    escapePage,
    fill,
    pages: (): PageCount => ({ ...held }),
  });
}

/** The engine's pages: unbranded, no pixels, no outcome reports (self-hosted-engine.md). */
const ENGINE_LOOK: PageLook = Object.freeze({ branded: false, pixels: [], tapReportUrl: null });

export type VisitResponder = ReturnType<typeof createVisitResponder>;

export function sendVisitResponse(reply: FastifyReply, response: VisitResponse): FastifyReply {
  const body = response.body === undefined ? undefined : Buffer.from(response.body, 'latin1');
  return reply.code(response.status).headers(response.headers).send(body);
}

/** Writes a response on the raw fast path; HEAD gets the headers only. */
export function writeVisitResponse(
  method: string | undefined,
  res: ServerResponse,
  response: VisitResponse,
): void {
  // An escape page's headers already carry its Content-Length, which HEAD keeps (RFC 9110, 9.3.2).
  res.writeHead(response.status, response.headers);
  // A byte string sent as latin1: Node writes it after the head in one copy (page-bytes.ts).
  if (method === 'HEAD' || response.body === undefined) res.end();
  else res.end(response.body, 'latin1');
}
