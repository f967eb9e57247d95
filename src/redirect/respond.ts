import type { FastifyReply, FastifyRequest } from 'fastify';
import { compileEscapePage, escapePageCsp } from '../core/pages/index.js';
import type { CompiledDestination } from '../core/resolve.js';
import { resolveVisit } from '../core/resolve.js';
import type { Visitor } from '../core/visitor.js';

export interface VisitResponderOptions {
  classify: (userAgent: string | undefined, purpose?: string) => Visitor;
  nonce: () => string;
  /** 301 on the engine (its spec); 302 on the hosted service, whose destinations change. */
  redirectStatus: 301 | 302;
  /** Extra headers on every redirect, e.g. the hosted service's `Cache-Control: private, max-age=0`. */
  redirectHeaders?: Readonly<Record<string, string>>;
}

export interface VisitOptions {
  branded?: boolean;
  /** The visitor, when the caller already classified it (the hosted redirect routes by device). */
  visitor?: Visitor;
}

type PageTemplate = (nonce: string) => string;

/** The one place a visit decision is acted on: a redirect, or the escape page. */
export function createVisitResponder(options: VisitResponderOptions) {
  const { classify, nonce, redirectStatus } = options;
  const redirectHeaders = Object.entries(options.redirectHeaders ?? {});
  // Escape pages precompiled per destination and visitor kind: a hit only adds the nonce. The WeakMap
  // lets a page go when its destination leaves the link cache.
  const pages = new WeakMap<CompiledDestination, Map<string, PageTemplate>>();

  const classifyRequest = (request: FastifyRequest): Visitor => visitorOf(request, classify);

  return function respondToVisit(
    request: FastifyRequest,
    reply: FastifyReply,
    compiled: CompiledDestination,
    visit: VisitOptions = {},
  ): FastifyReply {
    const visitor = visit.visitor ?? classifyRequest(request);
    const decision = resolveVisit(compiled, visitor);
    if (decision.kind === 'redirect') {
      // The answer depends on the user agent (a phone may get the escape page): shared caches must know.
      reply.code(redirectStatus).header('location', decision.location).header('vary', 'User-Agent');
      for (const [name, value] of redirectHeaders) reply.header(name, value);
      return reply.send();
    }
    const branded = visit.branded ?? false;
    const key = `${visitor.os}|${visitor.inApp}|${branded}`;
    let byVisitor = pages.get(compiled);
    if (!byVisitor) {
      byVisitor = new Map();
      pages.set(compiled, byVisitor);
    }
    let page = byVisitor.get(key);
    if (!page) {
      page = compileEscapePage({ target: decision.target, plan: decision.plan, branded, tap: null });
      byVisitor.set(key, page);
    }
    const pageNonce = nonce();
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', escapePageCsp(pageNonce))
      .header('cache-control', 'no-store')
      .header('vary', 'User-Agent')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'strict-origin-when-cross-origin')
      .send(page(pageNonce));
  };
}

export type VisitResponder = ReturnType<typeof createVisitResponder>;

/** The visitor of a request, from its User-Agent and its prefetch hints. */
export function visitorOf(
  request: FastifyRequest,
  classify: (userAgent: string | undefined, purpose?: string) => Visitor,
): Visitor {
  const headers = request.headers;
  return classify(headers['user-agent'], (headers['sec-purpose'] ?? headers.purpose) as string | undefined);
}
