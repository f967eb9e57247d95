import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HOSTED_DEFAULT_PORT } from '../config.js';
import { createHttpCaller } from '../mcp/http-caller.js';
import { createMcpServer } from '../mcp/server.js';
import { linkhopVersion } from '../mcp/version.js';
import { CliError } from './context.js';

const DEFAULT_URL = `http://localhost:${HOSTED_DEFAULT_PORT}`;

/**
 * `linkhop mcp`: the MCP server over stdio for a desktop assistant. It opens no database: every tool call
 * is one HTTP request to a running linkhop's /v1 (LINKHOP_URL, a local or remote instance) with
 * LINKHOP_API_KEY, so it can do exactly what that key can do there and nothing else. stdout carries
 * only the protocol; anything else goes to stderr.
 */
export async function runMcp(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (args.length > 0) throw new CliError('usage: linkhop mcp  (reads LINKHOP_API_KEY and LINKHOP_URL)');
  const apiKey = env.LINKHOP_API_KEY?.trim();
  if (!apiKey)
    throw new CliError(
      'LINKHOP_API_KEY is required: an API key made with `linkhop key create` or the dashboard',
    );
  const baseUrl = env.LINKHOP_URL?.trim() || DEFAULT_URL;
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    throw new CliError(`LINKHOP_URL must be an http(s) URL, not ${baseUrl}`);
  const server = createMcpServer(createHttpCaller({ baseUrl, apiKey }), linkhopVersion());
  await server.connect(new StdioServerTransport());
  process.stderr.write(`linkhop mcp: serving on stdio for ${baseUrl}\n`);
}
