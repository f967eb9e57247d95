import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';
import { childEnv } from '../helpers/env.js';

/** The CLI as a user runs it: the built entry point, real processes, real HTTP. */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'linkhop-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [CLI, ...args], { env: childEnv(env), encoding: 'utf8' });
}

/** Starts a server on a free port and resolves with its address once it logs that it listens. */
function start(
  command: 'serve' | 'engine',
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [CLI, command], {
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1], output: () => output });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('linkhop CLI', () => {
  it('migrate prints one JSON line and exits 0', () => {
    const result = run(['migrate'], { DATABASE_URL: `sqlite:${join(dir, 'migrate.db')}` });
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0] ?? '');
    expect(report.migrated).toBe(true);
    expect(report.applied).toContain('001-engine-links');
    const again = JSON.parse(run(['migrate'], { DATABASE_URL: `sqlite:${join(dir, 'migrate.db')}` }).stdout);
    expect(again).toEqual({ migrated: true, dialect: 'sqlite', applied: [] });
  });

  it('an unknown command is an error on stderr with a non-zero exit', () => {
    const result = run(['frobnicate'], {});
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('unknown command: frobnicate');
    expect(result.stdout).toBe('');
  });

  it('serve (npm start) answers /health, then shuts down cleanly on SIGTERM', async () => {
    const { child, url } = await start('serve', { DATABASE_URL: `sqlite:${join(dir, 'hosted.db')}` });
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(await stop(child)).toBe(0);
  });

  it('serve records every visit through its click writer thread and has written them all after SIGTERM', async () => {
    const database = `sqlite:${join(dir, 'clicks.db')}`;
    const { child, url, output } = await start('serve', { DATABASE_URL: database });
    let stopped = false;
    expect(output()).toContain('clicks are written on their own thread');
    try {
      const org = JSON.parse(
        run(['org', 'create', '--name', 'Clicks', '--tier', 'legend'], { DATABASE_URL: database }).stdout,
      ) as { apiKey: string };
      const created = await fetch(`${url}/v1/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', slug: 'yt' }),
      });
      expect(created.status).toBe(201);
      const instagram =
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.0.0 Mobile Safari/537.36 Instagram 355.1.0.44.103 Android';
      const visits = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          fetch(`${url}/yt`, {
            redirect: 'manual',
            headers: { 'user-agent': i % 3 === 0 ? instagram : 'Mozilla/5.0 (Windows NT 10.0) Chrome/131.0' },
          }).then(async (response) => {
            await response.arrayBuffer();
            return response.status;
          }),
        ),
      );
      expect(visits.filter((status) => status === 302)).toHaveLength(80);
      expect(visits.filter((status) => status === 200)).toHaveLength(40);
      expect(await stop(child)).toBe(0);
      stopped = true;
      const store = openStore(database);
      try {
        const blocks = await store.db.selectFrom('click_blocks').select(['humans', 'data']).execute();
        expect(blocks.reduce((sum, block) => sum + Number(block.humans), 0)).toBe(120);
        const tuples = blocks.flatMap((block) => JSON.parse(block.data) as unknown[][]);
        // Escape pages carry their tap id into the click; the redirects have none.
        expect(tuples.filter((tuple) => typeof tuple[10] === 'string')).toHaveLength(40);
        expect(new Set(tuples.map((tuple) => tuple[6]))).toEqual(new Set(['android', 'desktop']));
      } finally {
        await store.close();
      }
    } finally {
      if (!stopped) await stop(child);
    }
  });

  it('engine serves its API and redirects, with BASE_URL in shortUrl', async () => {
    const { child, url } = await start('engine', {
      DATABASE_URL: `sqlite:${join(dir, 'engine.db')}`,
      API_TOKEN: 'cli-token',
      BASE_URL: 'https://s.example',
    });
    try {
      const created = await fetch(`${url}/api/links`, {
        method: 'POST',
        headers: { authorization: 'Bearer cli-token', 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC', slug: 'song' }),
      });
      expect(created.status).toBe(201);
      expect(((await created.json()) as { shortUrl: string }).shortUrl).toBe('https://s.example/song');
      const visit = await fetch(`${url}/song`, { redirect: 'manual' });
      expect(visit.status).toBe(301);
      expect(visit.headers.get('location')).toBe('https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC');
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });

  it('engine: a database its migration process cannot reach stops the start with the reason, exit 1', () => {
    // The engine migrates in a child process (store/migrate-apart.ts): its failure reaches the person.
    const result = run(['engine'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing', PORT: '0' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^linkhop: Migration .* failed: connect ECONNREFUSED 127\.0\.0\.1:1$/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a PLATFORMS_FILE that fails validation stops the start with its problems listed', () => {
    const file = join(dir, 'platforms.json');
    writeFileSync(file, JSON.stringify([{ key: 'Bad Key!', name: 'x', hosts: ['not a host'] }]));
    const result = run(['engine'], {
      DATABASE_URL: `sqlite:${join(dir, 'bad.db')}`,
      PLATFORMS_FILE: file,
      PORT: '0',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/key/);
    expect(result.stderr).toMatch(/hosts/);
  });

  it('a PLATFORMS_FILE that is not JSON stops the start naming the file', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{ nope');
    const result = run(['engine'], {
      DATABASE_URL: `sqlite:${join(dir, 'bad2.db')}`,
      PLATFORMS_FILE: file,
      PORT: '0',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('PLATFORMS_FILE');
  });
});
