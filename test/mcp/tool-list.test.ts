import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteKind } from '../helpers/stores.js';
import { httpClient, type McpHarness, startMcpHarness } from './harness.js';

/**
 * The tool list as a client sees it, names, descriptions, annotations and input schemas, against a
 * file checked in beside this test: renaming a tool or changing what it takes is a visible diff of
 * tool-list.json (update it deliberately with `npx vitest run test/mcp/tool-list.test.ts -u`).
 */

let h: McpHarness;
beforeAll(async () => {
  h = await startMcpHarness(sqliteKind);
});
afterAll(() => h.close());

it('lists the tools as tool-list.json records them', async () => {
  const { apiKey } = await h.key();
  const client = await httpClient(h.origin, apiKey);
  try {
    const { tools } = await client.listTools();
    await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot('./tool-list.json');
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(tool.description?.length ?? 0).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
    }
  } finally {
    await client.close();
  }
});
