import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQrPng } from '../helpers/qr-decode.js';
import { storeKinds } from '../helpers/stores.js';
import { httpClient, type McpHarness, resultJson, startMcpHarness } from './harness.js';

/**
 * /v1/mcp driven by the SDK's own Client over Streamable HTTP against a listening hosted service (issue
 * #34): every tool answers what /v1 answers, refusals are tool errors with /v1's error code, and the
 * key's scopes, plan and rate limit hold exactly as on /v1.
 */

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`MCP over Streamable HTTP (${kind.name})`, () => {
    let h: McpHarness;
    let apiKey: string;
    let client: Client;
    beforeAll(async () => {
      h = await startMcpHarness(kind);
      ({ apiKey } = await h.key());
      client = await httpClient(h.origin, apiKey);
    });
    afterAll(async () => {
      await client?.close();
      await h?.close();
    });

    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await client.callTool({ name, arguments: args }));
    const v1 = async (url: string) => (await h.hosted.v1(apiKey, { method: 'GET', url })).json();

    it('creates, reads, updates, searches and archives a link, each answer the /v1 JSON', async () => {
      const created = await call('create_link', { url: 'https://example.com/launch', tags: ['launch'] });
      expect(created.isError).toBe(false);
      const id = created.json.id as string;
      expect(created.json).toMatchObject({ destination: 'https://example.com/launch', tags: ['launch'] });

      // The audit log names the key, as for the same call made on /v1 (the tool call is that call).
      const audit = (await v1(`/v1/audit-log?targetId=${id}`)) as {
        entries: { action: string; actor: { type: string; label: string } }[];
      };
      expect(audit.entries.map((entry) => [entry.action, entry.actor.type, entry.actor.label])).toEqual([
        ['link.created', 'key', 'MCP test key'],
      ]);

      const got = await call('get_link', { id });
      expect(got.json).toEqual(await v1(`/v1/links/${id}`));

      const updated = await call('update_link', {
        id,
        url: 'https://example.com/v2',
        utm: { source: 'mcp' },
      });
      expect(updated.json).toMatchObject({ id, utm: { source: 'mcp' } });
      expect(updated.json.destination).toContain('https://example.com/v2');

      const tagged = await call('set_link_tags', { id, tags: ['spring', 'launch'] });
      expect(tagged.json.tags).toEqual(['spring', 'launch']);

      const found = await call('search_links', { q: 'example.com/v2', tag: 'spring' });
      expect((found.json.links as { id: string }[]).map((link) => link.id)).toEqual([id]);
      expect(found.json).toEqual(await v1('/v1/links?q=example.com%2Fv2&tag=spring'));

      const archived = await call('archive_link', { id });
      expect(archived.json).toMatchObject({ archived: true });
      expect((await call('search_links', {})).json.links).toEqual([]);
      expect(((await call('search_links', { archived: 'true' })).json.links as { id: string }[])[0]?.id).toBe(
        id,
      );
      expect((await call('unarchive_link', { id })).json).toMatchObject({ id, archived: false });
    });

    it('manages folders, and a link goes in one', async () => {
      const folder = await call('create_folder', { name: 'Campaigns' });
      expect(folder.json).toMatchObject({ name: 'Campaigns' });
      const folderId = folder.json.id as string;
      expect((await call('rename_folder', { id: folderId, name: 'Spring' })).json).toMatchObject({
        name: 'Spring',
      });
      const link = await call('create_link', { url: 'https://example.com/in-folder', folderId });
      expect((await call('list_folders', {})).json).toEqual(await v1('/v1/folders'));
      const inFolder = await call('search_links', { folderId });
      expect((inFolder.json.links as { id: string }[]).map((item) => item.id)).toEqual([link.json.id]);
      expect((await call('delete_folder', { id: folderId })).json).toEqual({ deleted: true });
      expect((await call('get_link', { id: link.json.id })).json.folderId).toBeNull();
    });

    it('answers link and workspace analytics and the escape heat map exactly as /v1', async () => {
      const { json: link } = await call('create_link', {
        url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      });
      const id = link.id as string;
      expect((await call('get_link_stats', { id })).json).toEqual(await v1(`/v1/links/${id}/stats`));
      expect((await call('list_link_clicks', { id, limit: 5 })).json).toEqual(
        await v1(`/v1/links/${id}/clicks?limit=5`),
      );
      expect((await call('get_workspace_analytics', { days: 7 })).json).toEqual(
        await v1('/v1/analytics?days=7'),
      );
      expect((await call('get_escape_heatmap', { days: 14, linkId: id })).json).toEqual(
        await v1(`/v1/analytics/escape?days=14&linkId=${id}`),
      );
    });

    it('answers destination health: one link, and the links that are down', async () => {
      const { json: link } = await call('create_link', { url: 'https://example.com/health' });
      const id = link.id as string;
      expect((await call('get_link_health', { id })).json).toEqual(await v1(`/v1/links/${id}/health`));
      const down = await call('list_down_links', { limit: 10 });
      expect(down.json).toEqual(await v1('/v1/links?health=down&limit=10'));
      expect(down.json.links).toEqual([]);
    });

    it('reads and concludes an A/B test, changes links in bulk and lists domains, as /v1 does', async () => {
      const { json: link } = await call('create_link', {
        url: 'https://example.com/ab',
        ab: [
          { u: 'https://example.com/a', w: 1 },
          { u: 'https://example.com/b', w: 1 },
        ],
      });
      const id = link.id as string;
      const readout = await call('get_ab_test', { id });
      expect(readout.isError).toBe(false);
      expect(readout.json).toEqual(await v1(`/v1/links/${id}/ab`));
      const promoted = await call('promote_ab_variant', { id, variant: 1 });
      expect(promoted.isError).toBe(false);
      expect((promoted.json.link as { destination: string }).destination).toBe('https://example.com/b');
      // Once concluded, a second promote is /v1's own refusal.
      const again = await call('promote_ab_variant', { id, variant: 0 });
      expect(again).toMatchObject({ isError: true, json: { error: 'ab_not_running' } });

      const others = [
        (await call('create_link', { url: 'https://example.com/bulk-1' })).json.id,
        (await call('create_link', { url: 'https://example.com/bulk-2' })).json.id,
      ] as string[];
      const bulk = await call('bulk_update_links', {
        selection: { ids: others },
        action: { type: 'add_tags', tags: ['bulk'] },
      });
      expect(bulk.json).toMatchObject({ status: 'done', total: 2, changed: 2 });
      const tagged = await call('search_links', { tag: 'bulk' });
      expect((tagged.json.links as { id: string }[]).map((item) => item.id).sort()).toEqual(
        [...others].sort(),
      );
      const unknownJob = await call('get_bulk_action', { id: '00000000-0000-4000-8000-000000000000' });
      expect(unknownJob.isError).toBe(true);
      expect((await call('list_domains', {})).json).toEqual(await v1('/v1/domains'));
    });

    it("returns a link's QR code as a PNG image that decodes to its short URL, or as SVG markup", async () => {
      const { json: link } = await call('create_link', { url: 'https://example.com/qr' });
      const result = (await client.callTool({
        name: 'get_link_qr',
        arguments: { id: link.id },
      })) as CallToolResult;
      const image = result.content[0];
      if (image?.type !== 'image') throw new Error(`expected an image, got ${image?.type}`);
      expect(image.mimeType).toBe('image/png');
      // The short URL with the QR marker its scans carry (a scan counts as source qr).
      expect(decodeQrPng(Buffer.from(image.data, 'base64'))).toBe(`${link.shortUrl}?qr=1`);
      const direct = await h.hosted.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/qr?format=png` });
      expect(Buffer.from(image.data, 'base64').equals(direct.rawPayload)).toBe(true);
      const svg = (await client.callTool({
        name: 'get_link_qr',
        arguments: { id: link.id, format: 'svg' },
      })) as CallToolResult;
      const markup = svg.content[0];
      expect(markup?.type === 'text' && markup.text.startsWith('<svg')).toBe(true);
    });

    it("answers bad arguments with /v1's own validation error, and unknown arguments before any call", async () => {
      const bad = await call('create_link', { url: 'not a url' });
      expect(bad.isError).toBe(true);
      expect(bad.json).toMatchObject({ error: 'invalid_body', message: '`url` must be a valid http(s) URL' });
      const stray = await call('set_link_tags', { id: 'x', tags: [], url: 'https://evil.example' });
      expect(stray).toMatchObject({ isError: true, json: { error: 'invalid_body' } });
      expect(stray.json.message).toContain('url');
      const noId = await call('get_link', {});
      expect(noId).toMatchObject({ isError: true, json: { error: 'invalid_body' } });
    });

    it("refuses a read-only key's write with /v1's forbidden_scope, and lets it read", async () => {
      const readOnly = await h.key({ scopes: ['links:read'] });
      const reader = await httpClient(h.origin, readOnly.apiKey);
      try {
        const refused = resultJson(
          await reader.callTool({ name: 'create_link', arguments: { url: 'https://example.com/x' } }),
        );
        const direct = await h.hosted.v1(readOnly.apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://example.com/x' },
        });
        expect(direct.statusCode).toBe(403);
        expect(refused).toEqual({ isError: true, json: direct.json() });
        expect(refused.json.error).toBe('forbidden_scope');
        const stats = resultJson(await reader.callTool({ name: 'get_workspace_analytics', arguments: {} }));
        expect(stats.json.error).toBe('forbidden_scope');
        expect(resultJson(await reader.callTool({ name: 'search_links', arguments: {} })).isError).toBe(
          false,
        );
      } finally {
        await reader.close();
      }
    });

    it("refuses a key whose plan lacks the API with /v1's own 401 and message", async () => {
      const hero = await h.key({ tier: 'hero' });
      const direct = await h.hosted.v1(hero.apiKey, { method: 'GET', url: '/v1/links' });
      expect(direct.statusCode).toBe(401);
      const error = await httpClient(h.origin, hero.apiKey).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
      expect((error as Error).message).toContain(direct.json().message);
    });

    it('refuses no key and a wrong key with HTTP 401 and the error body', async () => {
      for (const authorization of [undefined, 'Bearer lh_not-a-key']) {
        const response = await fetch(`${h.origin}/v1/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ error: 'unauthorized' });
      }
    });

    it('is not in the OpenAPI document: a JSON-RPC endpoint, not a REST operation', async () => {
      const doc = (await h.hosted.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(doc.paths)).toContain('/v1/links');
      expect(Object.keys(doc.paths).filter((path) => path.includes('mcp'))).toEqual([]);
    });

    it('answers GET and DELETE with 405 (a stateless server: no SSE stream, no session)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(`${h.origin}/v1/mcp`, {
          method,
          headers: { authorization: `Bearer ${apiKey}` },
        });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    });

    it('counts each MCP request once against the key’s /v1 rate limit, tool calls included', async () => {
      const fresh = await h.key();
      const remaining = async () =>
        Number(
          (await h.hosted.v1(fresh.apiKey, { method: 'GET', url: '/v1/me' })).headers[
            'x-ratelimit-remaining'
          ],
        );
      const before = await remaining();
      const methods: string[] = [];
      const counting = await httpClient(h.origin, fresh.apiKey, (url, init) => {
        methods.push(init?.method ?? 'GET');
        return fetch(url, init);
      });
      await counting.callTool({ name: 'create_link', arguments: { url: 'https://example.com/counted' } });
      await counting.callTool({ name: 'search_links', arguments: {} });
      await counting.close();
      // Each HTTP request counts one, as on /v1: four POSTs (initialize, initialized, two tool calls) and
      // the client's GET for an SSE stream (405); the tool calls' own /v1 calls add nothing. The probe: one.
      expect(methods.filter((method) => method === 'POST')).toHaveLength(4);
      expect(await remaining()).toBe(before - methods.length - 1);
    });

    it('shares the limit with /v1: a key that spent it on /v1 is refused 429 on /v1/mcp', async () => {
      const spent = await h.key();
      for (let i = 0; i < 120; i++) await h.hosted.v1(spent.apiKey, { method: 'GET', url: '/v1/me' });
      const error = await httpClient(h.origin, spent.apiKey).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect((error as StreamableHTTPError).code).toBe(429);
    });
  });
}

it('answers a call to a tool that does not exist with a protocol error', async () => {
  const { sqliteKind } = await import('../helpers/stores.js');
  const h = await startMcpHarness(sqliteKind);
  const { apiKey } = await h.key();
  const client = await httpClient(h.origin, apiKey);
  try {
    await expect(client.callTool({ name: 'drop_database', arguments: {} })).rejects.toThrow(/Unknown tool/);
  } finally {
    await client.close();
    await h.close();
  }
});
