import { readFileSync } from 'node:fs';
import { createPlatformTable, type PlatformTable, parsePlatformsFile } from './core/platforms/index.js';

/**
 * The built-in table plus the deployment's PLATFORMS_FILE, read and validated once at start. A bad file
 * stops the start with every problem listed, never a half-loaded table.
 */
export function loadPlatformTable(platformsFile: string | undefined): PlatformTable {
  if (!platformsFile) return createPlatformTable();
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(platformsFile, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`PLATFORMS_FILE ${platformsFile}: cannot read it as JSON (${reason})`);
  }
  return createPlatformTable(parsePlatformsFile(json));
}
