import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../../src/tenancy/permissions.js';
import type { Tier } from '../../src/tenancy/plans.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import type { StoreKind } from '../helpers/stores.js';

/** A hosted service listening on loopback, as an MCP client (or `linkhop mcp`) reaches it. */
export interface McpHarness {
  hosted: HostedHarness;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** An API key of a new organization at `tier` (legend by default), with these scopes (all by default). */
  key(options?: { tier?: Tier; scopes?: Scope[] }): Promise<{ apiKey: string; orgId: string }>;
  close(): Promise<void>;
}

export async function startMcpHarness(
  kind: StoreKind,
  env: Record<string, string> = {},
): Promise<McpHarness> {
  const hosted = await startHosted(kind, env);
  const origin = await hosted.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    hosted,
    origin,
    async key(options = {}) {
      const { orgId } = await hosted.accounts.createOrganization({
        name: 'MCP org',
        tier: options.tier ?? 'legend',
      });
      const key = { name: 'MCP test key', scopes: options.scopes ?? (['all'] as Scope[]) };
      const { apiKey } = await hosted.accounts.mintApiKey(orgId, key);
      return { apiKey, orgId };
    },
    close: () => hosted.close(),
  };
}

/** The SDK's own Client on /v1/mcp with this key. */
export async function httpClient(origin: string, apiKey: string, fetchFn?: FetchLike): Promise<Client> {
  const client = new Client({ name: 'linkhop-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/v1/mcp', origin), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    ...(fetchFn ? { fetch: fetchFn } : {}),
  });
  await client.connect(transport);
  return client;
}

/** A tool's result as its JSON text parsed (what /v1 answered), and whether it is a tool error. */
export function resultJson(result: unknown): { isError: boolean; json: Record<string, unknown> } {
  const { content, isError } = result as CallToolResult;
  const first = content[0];
  if (first?.type !== 'text') throw new Error(`expected text content, got ${first?.type}`);
  return { isError: isError === true, json: JSON.parse(first.text) as Record<string, unknown> };
}
