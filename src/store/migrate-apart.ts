import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Migrates `url` in a child process and waits for it. The engine's process never loads Kysely (it asks its
 * two statements of the driver, engine/store.ts), but the migrations are Kysely's: run in the engine's
 * own process they would leave Kysely and everything compiled for them behind for its whole life. A worker
 * thread that exits still left 8 MB of its heap's pages with the process (docs/performance.md, "Memory");
 * a process leaves nothing. The child is this same `node` with the same flags and the same environment,
 * DATABASE_URL set to `url`; it adds about a third of a second to a start.
 */
export async function migrateApart(url: string): Promise<{ applied: string[] }> {
  // Beside this file, built or not: from src/ (tests, a TypeScript loader in execArgv) the .ts one.
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const script = fileURLToPath(new URL(`./migrate-process${extension}`, import.meta.url));
  // The same flags, but not a debugger's: the child would ask for the port the parent holds.
  const flags = process.execArgv.filter((flag) => !/^--(inspect|debug)/.test(flag));
  const child = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) {
    const reason = stderr.trim().split('\n').at(-1) || `the migration process ended with code ${code}`;
    throw new Error(reason);
  }
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return { applied: (JSON.parse(last) as { applied: string[] }).applied };
}
