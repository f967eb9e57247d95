import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UA } from '../helpers/user-agents.js';

/**
 * Issue #36, item 3: the engine idles at 60 MB or less only while it loads neither Fastify, Zod nor Kysely
 * (docs/performance.md, "Memory"); its migrations run on Kysely in a child process (store/migrate-apart.ts).
 * `linkhop engine` runs here from src/ as it is (each file transpiled on load, so no stale dist/ can hide an
 * import), serves a request on every route, and the modules each process resolved are read back: ESM
 * imports through module hooks, require() through CommonJS resolution.
 */

const ROOT = join(import.meta.dirname, '../..');
const REGISTER = join(import.meta.dirname, 'module-graph/register.mjs');
const FORBIDDEN = ['zod', 'fastify', 'fastify-type-provider-zod', '@fastify', 'kysely'];

const packagesIn = (modules: string[]) =>
  new Set(
    modules.flatMap((module) => {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(module);
      return match ? [match[1] as string] : [];
    }),
  );

/** A child's environment: only PATH and the record, not the test runner's (Vite sets BASE_URL=/). */
const traced = (dir: string, name: string) => {
  const record = join(dir, `${name}.txt`);
  return { record, env: { PATH: process.env.PATH, MODULE_GRAPH_RECORD: record } };
};

describe('the engine module graph', () => {
  let dir: string;
  /** What the engine's own process resolved. */
  let modules: string[] = [];
  /** What its migration process resolved. */
  let migrating: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engine-graph-'));
    const { record, env } = traced(dir, 'engine');
    const child = spawn(process.execPath, ['--import', REGISTER, join(ROOT, 'src/cli/main.ts'), 'engine'], {
      env: {
        ...env,
        DATABASE_URL: `sqlite:${join(dir, 'engine.db')}`,
        PORT: '0',
        HOST: '127.0.0.1',
        API_TOKEN: 'graph-token',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const origin = await listening(child);
      await exerciseEveryRoute(origin);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    const lines = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    const of = (pid: number, same: boolean) =>
      lines.flatMap((line) => {
        const space = line.indexOf(' ');
        return (Number(line.slice(0, space)) === pid) === same ? [line.slice(space + 1)] : [];
      });
    modules = of(child.pid as number, true);
    migrating = of(child.pid as number, false);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ran the engine from src/ and saw its modules and packages (the trace is not empty)', () => {
    expect(modules.some((module) => module.endsWith('/src/engine/app.ts'))).toBe(true);
    expect(modules.some((module) => module.endsWith('/src/engine/schema.ts'))).toBe(true);
    expect([...packagesIn(modules)]).toEqual(expect.arrayContaining(['pino', 'better-sqlite3', 'isbot']));
  });

  it('migrated the database in a process of its own, on Kysely', () => {
    expect(migrating.some((module) => module.endsWith('/src/store/migrate-process.ts'))).toBe(true);
    expect([...packagesIn(migrating)]).toContain('kysely');
  });

  it('loads neither Fastify, Zod nor Kysely, after serving every route', () => {
    const loaded = [...packagesIn(modules)];
    expect(
      loaded.filter((name) =>
        FORBIDDEN.some((forbidden) => name === forbidden || name.startsWith(`${forbidden}/`)),
      ),
    ).toEqual([]);
  });

  it('the same trace sees Zod where it is imported (config.ts), so a Zod import in the engine would show', () => {
    const { record, env } = traced(dir, 'control');
    const config = pathToFileURL(join(ROOT, 'src/config.ts')).href;
    const result = spawnSync(
      process.execPath,
      ['--import', REGISTER, '--input-type=module', '-e', `await import(${JSON.stringify(config)});`],
      { env, encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    const lines = readFileSync(record, 'utf8').split('\n');
    expect([...packagesIn(lines.map((line) => line.slice(line.indexOf(' ') + 1)))]).toContain('zod');
  });
});

/** The URL of the engine's "listening" log line. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk) => {
      err += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((text) => text.includes('"msg":"linkhop engine listening"}'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) =>
      reject(new Error(`engine exited (${code}) before listening:\n${out}\n${err}`)),
    );
  });
}

/** One request down each path the engine has, so modules loaded on first use are loaded too. */
async function exerciseEveryRoute(origin: string): Promise<void> {
  const auth = { authorization: 'Bearer graph-token', 'content-type': 'application/json' };
  const created = await fetch(`${origin}/api/links`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', slug: 'yt' }),
  });
  expect(created.status).toBe(201);
  const answers = await Promise.all([
    fetch(`${origin}/api/links/yt`, { headers: auth }),
    fetch(`${origin}/api/links`, { method: 'POST', headers: auth, body: '{bad' }),
    fetch(`${origin}/api/links`, { headers: auth }),
    fetch(`${origin}/yt`, { redirect: 'manual', headers: { 'user-agent': UA.desktopChrome } }),
    fetch(`${origin}/yt`, { headers: { 'user-agent': UA.instagramIos } }),
    fetch(`${origin}/nothing-here`),
    fetch(`${origin}/api/nothing`),
    fetch(`${origin}/health`),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual([200, 400, 405, 301, 200, 404, 404, 200]);
}
