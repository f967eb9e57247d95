import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The header an in-process tool call carries its pass in (src/mcp/inject-caller.ts). */
export const PASS_HEADER = 'x-linkhop-mcp-pass';

export interface InnerPasses {
  /** A one-use pass for one /v1 call made on behalf of a /v1/mcp request with this Authorization. */
  issue(authorization: string): string;
  /** Forgets a pass that was never redeemed (the call did not reach the /v1 hook). */
  drop(pass: string): void;
  /**
   * For the /v1 hook: true, once, when the request carries a live pass issued for its own Authorization.
   * A pass is 256 random bits that lives for one in-process call, so nothing outside the process can
   * present one; and it only spares the count, never the key's check, scopes or plan.
   */
  redeem(request: FastifyRequest): boolean;
}

/**
 * The rate limit counts a /v1/mcp request once, as any /v1 request (the hook did, before the MCP layer
 * ran); the /v1 call its tool makes in-process carries a pass so that it is not counted a second time.
 * One tool call makes exactly one /v1 call, so a key gets no more /v1 operations per minute through MCP
 * than without it.
 */
export function createInnerPasses(): InnerPasses {
  const live = new Map<string, string>();
  return {
    issue(authorization) {
      const pass = randomBytes(32).toString('base64url');
      live.set(pass, authorization);
      return pass;
    },
    drop: (pass) => void live.delete(pass),
    redeem(request) {
      const pass = request.headers[PASS_HEADER];
      if (typeof pass !== 'string') return false;
      const authorization = live.get(pass);
      if (authorization === undefined) return false;
      live.delete(pass);
      return authorization === request.headers.authorization;
    },
  };
}
