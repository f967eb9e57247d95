import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { inputJsonSchema, type ToolSpec, toRequest } from './tool-spec.js';
import { TOOLS } from './tools.js';
import { toolError, toToolResult, type V1Caller } from './v1-caller.js';

const INSTRUCTIONS =
  'linkhop makes short links that open in the right app from in-app browsers. Every tool is one call of ' +
  'the linkhop /v1 API with your API key and answers what the API answers: JSON, or for get_link_qr an ' +
  'image. A refused call is a tool error whose JSON carries the API’s `error` code and `message` (for ' +
  'example forbidden_scope when the key may not do it, not_found for an id of another organization).';

/**
 * The linkhop MCP server on a V1Caller. The SDK's low-level Server, not McpServer: McpServer validates
 * arguments itself and answers its own error text, where here /v1 validates them with the same Zod
 * schema the tool publishes and the tool error is /v1's own error body (issue #34).
 */
export function createMcpServer(caller: V1Caller, version: string): Server {
  const server = new Server(
    { name: 'linkhop', title: 'linkhop', version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const byName = new Map<string, ToolSpec>(TOOLS.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJsonSchema(tool),
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    // An unknown tool is a protocol error (the spec's -32602), not a tool's.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const v1Request = toRequest(tool, request.params.arguments ?? {});
    if ('error' in v1Request) return toolError(v1Request);
    try {
      return toToolResult(await caller.call(v1Request));
    } catch (error) {
      // Only the stdio caller can fail this way (the service is unreachable or too slow).
      const message = error instanceof Error ? error.message : String(error);
      return toolError({ error: 'unavailable', message: `linkhop could not be reached: ${message}` });
    }
  });
  return server;
}
