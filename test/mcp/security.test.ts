import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASS_HEADER } from '../../src/mcp/inner-passes.js';
import { BASE_URL } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { httpClient, type McpHarness, resultJson, startMcpHarness } from './harness.js';

/**
 * /v1/mcp is a new door (issue #34, SECURITY.md): a browser page of another origin cannot use it, no key
 * is no entry, a key reaches only its own organization's links through any tool, a revoked key is
 * refused at its next request, and nothing from outside can spare a request the rate limit's count.
 */

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`the /v1/mcp door (${kind.name})`, () => {
    let h: McpHarness;
    beforeAll(async () => {
      h = await startMcpHarness(kind);
    });
    afterAll(() => h?.close());

    const post = (headers: Record<string, string>, body: unknown = INITIALIZE) =>
      fetch(`${h.origin}/v1/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });

    it("refuses a browser's request from another origin (DNS rebinding), and takes the service's own", async () => {
      const { apiKey } = await h.key();
      const authorization = `Bearer ${apiKey}`;
      for (const origin of ['https://evil.example', 'http://127.0.0.1:1', 'null']) {
        const refused = await post({ authorization, origin });
        expect(refused.status).toBe(403);
        expect(await refused.json()).toMatchObject({ error: 'forbidden' });
      }
      const own = await post({ authorization, origin: new URL(BASE_URL).origin });
      expect(own.status).toBe(200);
      expect(
        ((await own.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
      ).toBe('linkhop');
      expect((await post({ authorization })).status).toBe(200);
    });

    it('refuses no key and a wrong key with 401 before the MCP layer answers anything', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer lh_wrong' },
        { authorization: 'Basic abc' },
      ] as Record<string, string>[]) {
        const response = await post(headers);
        expect(response.status).toBe(401);
        const body = await response.json();
        expect(body).toMatchObject({ error: 'unauthorized' });
        expect(body).not.toHaveProperty('result');
      }
    });

    it("reaches no other organization's link through any tool: each is /v1's not_found", async () => {
      const owner = await h.key();
      const other = await h.key();
      const mine = await h.hosted.v1(owner.apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/private' },
      });
      const id = mine.json().id as string;
      const intruder = await httpClient(h.origin, other.apiKey);
      try {
        for (const [name, args] of [
          ['get_link', { id }],
          ['update_link', { id, url: 'https://evil.example/' }],
          ['set_link_tags', { id, tags: ['owned'] }],
          ['archive_link', { id }],
          ['get_link_stats', { id }],
          ['list_link_clicks', { id }],
          ['get_link_health', { id }],
          ['get_link_qr', { id }],
        ] as const) {
          const result = resultJson(await intruder.callTool({ name, arguments: args }));
          expect(result, name).toMatchObject({ isError: true, json: { error: 'not_found' } });
        }
        const found = resultJson(await intruder.callTool({ name: 'search_links', arguments: {} }));
        expect(found.json.links).toEqual([]);
      } finally {
        await intruder.close();
      }
      const after = await h.hosted.v1(owner.apiKey, { method: 'GET', url: `/v1/links/${id}` });
      expect(after.json()).toMatchObject({
        destination: 'https://example.com/private',
        tags: [],
        archived: false,
      });
    });

    it('refuses a key revoked mid-session at its very next request', async () => {
      const { orgId } = await h.key();
      const { id: keyId, apiKey } = await h.hosted.accounts.mintApiKey(orgId, {
        name: 'soon revoked',
        scopes: ['all'],
      });
      const client = await httpClient(h.origin, apiKey);
      try {
        expect(resultJson(await client.callTool({ name: 'search_links', arguments: {} })).isError).toBe(
          false,
        );
        await h.hosted.accounts.revokeApiKey(keyId);
        await expect(client.callTool({ name: 'search_links', arguments: {} })).rejects.toMatchObject({
          code: 401,
        });
      } finally {
        await client.close();
      }
    });

    it('counts a request that forges the in-process pass header like any other', async () => {
      const { apiKey } = await h.key();
      const remaining = async (headers: Record<string, string> = {}) =>
        Number(
          (await h.hosted.v1(apiKey, { method: 'GET', url: '/v1/me', headers })).headers[
            'x-ratelimit-remaining'
          ],
        );
      const first = await remaining();
      const forged = await remaining({ [PASS_HEADER]: randomBytes(32).toString('base64url') });
      expect(forged).toBe(first - 1);
    });
  });
}
