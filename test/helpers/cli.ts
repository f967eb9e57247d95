import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { childEnv } from './env.js';

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');

/** The built `linkhop` command against one database: its exit status, stderr and stdout's non-empty lines. */
export function cliOn(databaseUrl: string) {
  return (...args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], {
      env: childEnv({ DATABASE_URL: databaseUrl }),
      encoding: 'utf8',
    });
    return {
      status: result.status,
      stderr: result.stderr,
      lines: result.stdout.trim().split('\n').filter(Boolean),
    };
  };
}
