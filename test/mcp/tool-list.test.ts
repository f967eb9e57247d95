import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteKind } from '../helpers/stores.js';
import { httpClient, type McpHarness, startMcpHarness } from './harness.js';

/**
 * The tool list as a client sees it (names, titles, descriptions, annotations, input schemas) against
 * tool-list.json, checked in beside this test: renaming a tool or changing what it takes is a visible
 * diff in review. After a deliberate change: `MCP_TOOL_LIST=write npx vitest run test/mcp/tool-list.test.ts`
 * then `npx biome format --write test/mcp/tool-list.json`. Compared as data, so formatting is free.
 */

const FILE = join(import.meta.dirname, 'tool-list.json');

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
    if (process.env.MCP_TOOL_LIST === 'write') writeFileSync(FILE, `${JSON.stringify(tools, null, 2)}\n`);
    expect(tools).toEqual(JSON.parse(readFileSync(FILE, 'utf8')));
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(tool.description?.length ?? 0).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
    }
  } finally {
    await client.close();
  }
});
