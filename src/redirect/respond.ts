import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapePageCsp, renderEscapePage } from '../core/pages/index.js';
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
}

/** The one place a visit decision is acted on: a redirect, or the escape page. */
export function createVisitResponder(options: VisitResponderOptions) {
  const { classify, nonce, redirectStatus } = options;
  const redirectHeaders = Object.entries(options.redirectHeaders ?? {});

  return function respondToVisit(
    request: FastifyRequest,
    reply: FastifyReply,
    compiled: CompiledDestination,
    visit: VisitOptions = {},
  ): FastifyReply {
    const headers = request.headers;
    const purpose = (headers['sec-purpose'] ?? headers.purpose) as string | undefined;
    const visitor = classify(headers['user-agent'], purpose);
    const decision = resolveVisit(compiled, visitor);
    if (decision.kind === 'redirect') {
      // The answer depends on the user agent (a phone may get the escape page): shared caches must know.
      reply.code(redirectStatus).header('location', decision.location).header('vary', 'User-Agent');
      for (const [name, value] of redirectHeaders) reply.header(name, value);
      return reply.send();
    }
    const pageNonce = nonce();
    const html = renderEscapePage({
      target: decision.target,
      plan: decision.plan,
      nonce: pageNonce,
      branded: visit.branded ?? false,
      tap: null,
    });
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', escapePageCsp(pageNonce))
      .header('cache-control', 'no-store')
      .header('vary', 'User-Agent')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'strict-origin-when-cross-origin')
      .send(html);
  };
}

export type VisitResponder = ReturnType<typeof createVisitResponder>;
