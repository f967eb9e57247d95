import type { FastifyInstance } from 'fastify';
import { type InnerPasses, PASS_HEADER } from './inner-passes.js';
import { type V1Caller, v1Url } from './v1-caller.js';

/**
 * /v1/mcp's caller: each tool call is one /v1 request through the app's own router (app.inject), with the
 * Authorization header the MCP request came with, so the /v1 hook checks that key, its scopes and its
 * plan again and the route validates and answers exactly as over HTTP. It carries a one-use pass so the
 * rate limit, which already counted the MCP request, does not count it twice (src/mcp/inner-passes.ts).
 */
export function createInjectCaller(
  app: FastifyInstance,
  authorization: string,
  passes: InnerPasses,
): V1Caller {
  return {
    async call(request) {
      const pass = passes.issue(authorization);
      try {
        const response = await app.inject({
          method: request.method,
          url: v1Url(request),
          headers: {
            authorization,
            [PASS_HEADER]: pass,
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
        });
        const contentType = response.headers['content-type'];
        return {
          status: response.statusCode,
          contentType: typeof contentType === 'string' ? contentType : '',
          body: response.rawPayload,
        };
      } finally {
        passes.drop(pass);
      }
    },
  };
}
