import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appError } from '../errors.js';
import type { KeyContext, KeyRefusal, OrgContext } from '../tenancy/context.js';
import { authorize } from './authorize.js';
import type { RateDecision, RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated organization of a /v1 or dashboard call; null before authentication. */
    org: OrgContext | null;
  }
}

export const V1_RATE_LIMIT = { limit: 120, windowSeconds: 60 } as const;

export interface V1AuthDeps {
  /** The key's context; a refusal (a valid key whose plan lacks the API) or null answer 401. */
  authenticate: (authorization: string | undefined) => Promise<KeyContext | KeyRefusal | null>;
  limiter: RateLimiter;
  /**
   * True when this request is a /v1 call that a request already counted makes on the same key: an
   * MCP tool call on /v1/mcp (src/mcp/inner-passes.ts). It is still authenticated and authorized here,
   * only not counted a second time. Absent: every request counts.
   */
  alreadyCounted?: (request: FastifyRequest) => boolean;
}

function setRateHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.header('x-ratelimit-limit', String(decision.limit));
  reply.header('x-ratelimit-remaining', String(decision.remaining));
  reply.header('x-ratelimit-reset', String(decision.resetSeconds));
}

/**
 * The /v1 gate, in this order: the key is read from the Authorization header only (never a cookie),
 * checked against the store on every call, then counted against its window; callers without a valid key
 * are counted per address so the headers appear on every /v1 response, 401s included. Last, the route's
 * declared permission against the key's scopes (403 forbidden_scope).
 */
export function registerV1Auth(app: FastifyInstance, deps: V1AuthDeps): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await deps.authenticate(request.headers.authorization);
    const org = found && 'keyId' in found ? found : null;
    const bucket = org ? `key:${org.keyId}` : `ip:${request.ip}`;
    const counted = org !== null && deps.alreadyCounted?.(request) === true;
    const decision = counted
      ? { ...(await deps.limiter.peek(bucket)), allowed: true }
      : await deps.limiter.hit(bucket);
    setRateHeaders(reply, decision);
    // A valid key on a plan without the API hears why; anything else hears only that a key is needed.
    if (!org) {
      reply.header('www-authenticate', bearerChallenge(request.headers.authorization, found !== null));
      throw appError('unauthorized', found && 'refused' in found ? found.refused : undefined);
    }
    if (!decision.allowed) {
      throw appError('rate_limited', `Rate limit of ${decision.limit} requests per minute exceeded`, {
        retryAfter: decision.resetSeconds,
      });
    }
    const { orgId, tier, features, actor, createdBy, orgOwned } = org;
    request.org = { orgId, tier, features, actor, keyMaker: { createdBy, orgOwned } };
    authorize(request, { type: 'key', scopes: org.scopes });
  });
}

/**
 * RFC 6750's challenge on every 401, so that HTTP clients and agents (MCP clients read it first) know a
 * Bearer key is what is asked: `invalid_token` only when a Bearer credential was given and is no key of
 * ours; a refused key (a plan without the API) is valid, and no credential at all gets no error code.
 */
function bearerChallenge(authorization: string | undefined, known: boolean): string {
  const bearer = authorization !== undefined && /^bearer\s/i.test(authorization);
  return bearer && !known ? 'Bearer realm="linkhop", error="invalid_token"' : 'Bearer realm="linkhop"';
}

/** The organization of an authenticated request; the hooks guarantee it is set. */
export function orgOf(request: FastifyRequest): OrgContext {
  if (!request.org) throw appError('unauthorized');
  return request.org;
}
