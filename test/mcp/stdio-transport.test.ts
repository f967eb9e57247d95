import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/env.js';
import { sqliteKind } from '../helpers/stores.js';
import { httpClient, type McpHarness, resultJson, startMcpHarness } from './harness.js';

/**
 * `linkhop mcp` as a desktop assistant runs it: the built command (`npx tsc -p tsconfig.build.json`
 * first) spawned by the SDK's StdioClientTransport, talking to a listening hosted service through /v1
 * with LINKHOP_URL and LINKHOP_API_KEY.
 */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');

async function stdioClient(origin: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'linkhop-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: childEnv({ LINKHOP_URL: origin, LINKHOP_API_KEY: apiKey }) as Record<string, string>,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

describe('linkhop mcp over stdio', () => {
  let h: McpHarness;
  let apiKey: string;
  let client: Client;
  beforeAll(async () => {
    h = await startMcpHarness(sqliteKind);
    ({ apiKey } = await h.key());
    client = await stdioClient(h.origin, apiKey);
  });
  afterAll(async () => {
    await client?.close();
    await h?.close();
  });

  it('lists the same tools as /v1/mcp', async () => {
    const http = await httpClient(h.origin, apiKey);
    try {
      expect((await client.listTools()).tools).toEqual((await http.listTools()).tools);
    } finally {
      await http.close();
    }
  });

  it('creates, updates, searches and archives a link through the running service', async () => {
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await client.callTool({ name, arguments: args }));
    const created = await call('create_link', { url: 'https://example.com/stdio' });
    expect(created.isError).toBe(false);
    const id = created.json.id as string;
    const direct = await h.hosted.v1(apiKey, { method: 'GET', url: `/v1/links/${id}` });
    expect((await call('get_link', { id })).json).toEqual(direct.json());
    expect((await call('update_link', { id, tags: ['desk'] })).json.tags).toEqual(['desk']);
    const found = await call('search_links', { tag: 'desk' });
    expect((found.json.links as { id: string }[]).map((link) => link.id)).toEqual([id]);
    expect((await call('archive_link', { id })).json).toMatchObject({ archived: true });
    expect((await call('get_link_stats', { id })).json).toEqual(
      (await h.hosted.v1(apiKey, { method: 'GET', url: `/v1/links/${id}/stats` })).json(),
    );
  });

  it("refuses a read-only key's create with /v1's forbidden_scope as a tool error", async () => {
    const readOnly = await h.key({ scopes: ['links:read'] });
    const reader = await stdioClient(h.origin, readOnly.apiKey);
    try {
      const refused = resultJson(
        await reader.callTool({ name: 'create_link', arguments: { url: 'https://example.com/no' } }),
      );
      expect(refused).toMatchObject({ isError: true, json: { error: 'forbidden_scope' } });
    } finally {
      await reader.close();
    }
  });

  it('answers a service that cannot be reached as a tool error, not a crash', async () => {
    const lost = await stdioClient('http://127.0.0.1:9', apiKey);
    try {
      const result = resultJson(await lost.callTool({ name: 'search_links', arguments: {} }));
      expect(result).toMatchObject({ isError: true, json: { error: 'unavailable' } });
    } finally {
      await lost.close();
    }
  });

  it('exits with a message when LINKHOP_API_KEY is missing', () => {
    const run = spawnSync(process.execPath, [CLI, 'mcp'], { env: childEnv({}), encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('LINKHOP_API_KEY is required');
    expect(run.stdout).toBe('');
  });
});
