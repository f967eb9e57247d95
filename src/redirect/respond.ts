import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { TapPrefix } from '../analytics/tap-tokens.js';
import type { EscapeStrategy } from '../core/escape/index.js';
import type { ChooseStrategy } from '../core/pages/escape-plan.js';
import { compileEscapePageParts, type PagePixel } from '../core/pages/index.js';
import type { AppTarget } from '../core/platforms/index.js';
import type { CompiledDestination } from '../core/resolve.js';
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
  /**
   * The bandit's choice among a cell's allowed strategies (escape-choice.ts), per destination platform.
   * Unset (the engine): the matrix's first choice.
   */
  chooseFor?: (platformKey: string) => ChooseStrategy;
}

export interface VisitOptions {
  branded?: boolean;
  /** The visitor, when the caller already classified it (the hosted redirect routes by device). */
  visitor?: Visitor;
  /** Ad pixels for the page (hosted, pixelInjection only). */
  pixels?: readonly PagePixel[];
  /**
   * The outcome seam (hosted): issues this visit's tap token when, and only when, an escape page is
   * served; the page then reports its outcome to `reportUrl`.
   */
  tap?: {
    reportUrl: string;
    /** `memo` is kept with the compiled page (one per destination, cell and strategy), for the issuer. */
    issue: (target: AppTarget, strategy: EscapeStrategy, memo: PageMemo) => string;
  };
}

/** What the tap issuer keeps per compiled page: its tokens' shared prefix (tap-tokens.ts). */
export interface PageMemo {
  tapPrefix?: TapPrefix;
}

/** A compiled page and its memo. */
interface CachedPage {
  bytes: PageBytes;
  memo: PageMemo;
}

/**
 * A destination's compiled pages, by the visitor's OS and in-app browser, the strategy, then the page's
 * flags as a number: nested maps of strings the tables already hold, so a visit builds no key string.
 */
type PagesByCell = Map<string, Map<string | null, Map<string, Map<number, CachedPage>>>>;

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

/** Decides a visit and builds its response: a redirect, or the escape page. */
export function createVisitResponder(options: VisitResponderOptions) {
  const { classify, nonce, redirectStatus, chooseFor } = options;
  const redirectHeaders = options.redirectHeaders ?? {};
  // Escape pages compiled to bytes per destination, cell and strategy, on the cell's first visit: a hit
  // only fills in the nonce and the tap token. A compiled link owns its destinations, so the WeakMap lets
  // its pages go with it when the link cache drops or reloads the link.
  const pages = new WeakMap<CompiledDestination, PagesByCell>();
  // A redirect to a given destination is always the same response: built once, then shared (read-only).
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
  ): CachedPage {
    let byCell = pages.get(compiled);
    if (!byCell) {
      byCell = new Map();
      pages.set(compiled, byCell);
    }
    const byInApp = levelOf(byCell, visitor.os, newLevel);
    const byStrategy = levelOf(byInApp, visitor.inApp, newLevel);
    const byFlags = levelOf(byStrategy, strategy, newLevel);
    return levelOf(byFlags, flags, (): CachedPage => ({ bytes: count(compiled, build()), memo: {} }));
  }

  function respondToVisit(
    headers: IncomingHttpHeaders,
    compiled: CompiledDestination,
    visit: VisitOptions = {},
  ): VisitResponse {
    const visitor = visit.visitor ?? visitorOf(headers, classify);
    const target = compiled.target;
    const decision = resolveVisit(
      compiled,
      visitor,
      chooseFor && target !== null && visitor.mobile ? { choose: chooseFor(target.platformKey) } : undefined,
    );
    if (decision.kind === 'redirect') {
      let redirect = redirects.get(compiled);
      if (!redirect) {
        redirect = Object.freeze({
          status: redirectStatus,
          headers: Object.freeze({ location: decision.location, ...redirectHeaders }),
          body: undefined,
        }) as VisitResponse;
        redirects.set(compiled, redirect);
      }
      return redirect;
    }
    const branded = visit.branded ?? false;
    const pixels = visit.pixels ?? [];
    const tap = visit.tap;
    // The strategy is part of the key: with the bandit, one cell's visitors get pages of several strategies.
    const strategy = decision.plan.strategy;
    const flags = (branded ? 1 : 0) | (tap ? 2 : 0) | (pixels.length << 2);
    const { bytes: page, memo } = pageFor(compiled, visitor, strategy, flags, () =>
      compilePageBytes(
        compileEscapePageParts({
          target: decision.target,
          plan: decision.plan,
          branded,
          tap: tap ? { reportUrl: tap.reportUrl } : null,
          pixels,
        }),
      ),
    );
    const pageNonce = nonce();
    const tapToken = tap?.issue(decision.target, strategy, memo);
    const body = page.fill(pageNonce, tapToken);
    return {
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': page.csp(pageNonce),
        'cache-control': 'no-store',
        vary: 'User-Agent',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'strict-origin-when-cross-origin',
        'content-length': String(body.length),
      },
      body,
    };
  }
  return Object.assign(respondToVisit, { pages: (): PageCount => ({ ...held }) });
}

export type VisitResponder = (
  headers: IncomingHttpHeaders,
  compiled: CompiledDestination,
  visit?: VisitOptions,
) => VisitResponse;

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
