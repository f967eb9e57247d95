import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';

/**
 * SESSION_SECRET, or on SQLite one generated at first start and kept beside the database (mode 0600),
 * so sessions and tap tokens survive restarts. PostgreSQL deployments run several instances that must
 * share it, so there it is required.
 */
export function resolveSessionSecret(config: Config): string {
  if (config.sessionSecret) return config.sessionSecret;
  if (!config.databaseUrl.startsWith('sqlite:')) {
    throw new Error('SESSION_SECRET is required when DATABASE_URL is PostgreSQL');
  }
  const file = join(config.dataDir, 'session-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start: generate below
  }
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
