import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real `linkhop serve` on a free loopback port and its own SQLite file: what the SDK's types are
 * generated from and what its tests talk to. Needs `npm run build` (it runs dist/cli/main.js).
 */

const CLI = join(import.meta.dirname, '../../../dist/cli/main.js');
/** Long enough for a cold start on a busy two-core machine; a server that never listens fails the caller. */
const START_TIMEOUT_MS = 30_000;

/** The environment a child gets: ours, minus anything that would point it at another database or Redis. */
function childEnv(env) {
  const base = { ...process.env };
  // Vitest sets BASE_URL, MODE, DEV, PROD and SSR for Vite; none of them is the child's business.
  const inherited = ['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR', 'DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST'];
  for (const name of [...inherited, 'API_TOKEN', 'PLATFORMS_FILE', 'FLAGS_OFF', 'SESSION_SECRET']) {
    delete base[name];
  }
  return { ...base, ...env };
}

export async function startServe(env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-sdk-'));
  const database = `sqlite:${join(dir, 'linkhop.db')}`;
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: database, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`linkhop serve did not listen: ${output}`)),
      START_TIMEOUT_MS,
    );
    const read = (chunk) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`linkhop serve exited with ${code}: ${output}`));
    });
  });
  return {
    url,
    /** Runs a CLI command against the same database and returns its one JSON line. */
    cli(args) {
      const result = spawnSync(process.execPath, [CLI, ...args], {
        env: childEnv({ DATABASE_URL: database, LOG_LEVEL: 'warn' }),
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(`linkhop ${args.join(' ')} failed: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
