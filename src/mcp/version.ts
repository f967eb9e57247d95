import { readFileSync } from 'node:fs';

/** linkhop's version, as the MCP server names itself: package.json is two levels up from src/mcp and dist/mcp. */
export function linkhopVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
