import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appError } from '../errors.js';
import { createInjectCaller } from './inject-caller.js';
import type { InnerPasses } from './inner-passes.js';
import { createMcpServer } from './server.js';
import { linkhopVersion } from './version.js';

/** The JSON-RPC error the spec's stateless servers answer a GET or DELETE with (no id: it answers no request). */
const METHOD_NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: 'Method not allowed: this server takes POST only (stateless, no SSE stream)',
  },
  id: null,
};

/**
 * /v1/mcp: the MCP server over Streamable HTTP (issue #34), registered inside /v1 so the /v1 hook has
 * already checked the key, counted the request against its rate limit and refused what it refuses
 * (401/429) before the MCP layer sees anything. Stateless: a new server and transport per POST, answered
 * as one JSON response; every tool call is one in-process /v1 call with the same Authorization header.
 * Hidden from the OpenAPI document: it is a JSON-RPC endpoint, not a REST operation (docs/mcp.md).
 */
export async function mcpRoutes(
  app: FastifyInstance,
  deps: { passes: InnerPasses; baseUrl: string },
): Promise<void> {
  const ownOrigin = new URL(deps.baseUrl).origin;
  const version = linkhopVersion();

  app.post(
    '/mcp',
    { config: { permission: 'authenticated' }, schema: { hide: true } },
    async (request, reply) => {
      refuseForeignOrigin(request, ownOrigin);
      const caller = createInjectCaller(app, request.headers.authorization ?? '', deps.passes);
      const server = createMcpServer(caller, version);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(toWebRequest(request, deps.baseUrl), {
          parsedBody: request.body,
        });
        const body = Buffer.from(await response.arrayBuffer());
        return sendWebResponse(reply, response, body);
      } finally {
        await server.close();
      }
    },
  );

  // The spec: a server without an SSE stream answers GET 405; a stateless one has no session to DELETE.
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    config: { permission: 'authenticated' },
    schema: { hide: true },
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      refuseForeignOrigin(request, ownOrigin);
      return reply.code(405).header('allow', 'POST').send(METHOD_NOT_ALLOWED);
    },
  });
}

/**
 * The spec's guard against DNS rebinding: a browser's request names its page's origin, and only the
 * service's own (BASE_URL's) may talk to it. Clients that are not browsers send no Origin.
 */
function refuseForeignOrigin(request: FastifyRequest, ownOrigin: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== ownOrigin)
    throw appError('forbidden', 'Cross-origin requests to /v1/mcp are refused');
}

/** The request as the SDK's web-standard transport reads it: its headers; the body Fastify already parsed. */
function toWebRequest(request: FastifyRequest, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(new URL(request.url, baseUrl), { method: request.method, headers });
}

function sendWebResponse(reply: FastifyReply, response: Response, body: Buffer): FastifyReply {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  return body.length > 0 ? reply.send(body) : reply.send();
}
