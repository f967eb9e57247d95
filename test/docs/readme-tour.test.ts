import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README's tour and engine blocks, run as a newcomer pastes them (issue #32, items 1 and 2).
 *
 * Each block is the fenced ```sh block right after its marker comment (`<!-- tour:hosted ... -->`,
 * `<!-- tour:engine ... -->`), taken from README.md as it is and run by `bash` line after line, as a pasted
 * shell would (no `set -e`: a failing line does not stop the rest, so each step's own output is checked).
 *
 * Where it runs: a fresh temporary folder standing in for a fresh clone after its `npm install`, with
 * symlinks to this checkout's `dist/`, `node_modules/` and `package.json` (built by `npm test` before Vitest
 * runs), so `./data`, `linkhop.log` and `engine.log` are the folder's own and the checkout's `./data` is
 * never touched. The environment is a fresh shell's: PATH and HOME only, plus PORT (the hosted tour's
 * BASE follows it) or ENGINE_PORT (the engine snippet's), each a free port.
 *
 * `npm install` is made cheap: the PATH starts with a folder whose `npm` is a shim that answers `install`
 * with one line and exit 0 (installing and building again would take minutes and is what `npm test` did
 * already), and hands every other command (`npm start`, `npm run engine`) to the real npm, so the servers
 * start through package.json's own scripts and flags.
 *
 * After each block the server it left in the background is stopped: the block runs in a process group of
 * its own (`detached`), and the whole group gets SIGTERM (then SIGKILL if it lingers).
 */

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced sh block right after `<!-- tour:NAME`, or an error saying what is missing. */
function tourBlock(markdown: string, name: string): string {
  const marker = markdown.indexOf(`<!-- tour:${name}`);
  if (marker < 0) throw new Error(`README.md has no <!-- tour:${name} --> marker before its block`);
  const after = markdown.slice(markdown.indexOf('-->', marker) + 3);
  const fence = /^\s*```(?:sh|bash|shell)\n([\s\S]*?)\n```/.exec(after);
  if (!fence?.[1]) throw new Error(`README.md's <!-- tour:${name} --> marker is not followed by a sh block`);
  return `${fence[1]}\n`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The real npm on PATH (not a shim of ours). */
function realNpm(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'npm');
    try {
      accessSync(candidate, constants.X_OK);
      if (!candidate.includes('linkhop-readme-')) return candidate;
    } catch {}
  }
  throw new Error('npm is not on PATH');
}

const dir = mkdtempSync(join(tmpdir(), 'linkhop-readme-'));
const groups: ChildProcess[] = [];

/** A fresh "clone": the build and the dependencies of this checkout, nothing of its data. */
function freshClone(name: string): string {
  const clone = join(dir, name);
  mkdirSync(clone);
  for (const entry of ['dist', 'node_modules', 'package.json'])
    symlinkSync(join(ROOT, entry), join(clone, entry));
  return clone;
}

const shimDir = join(dir, 'bin');
mkdirSync(shimDir);
writeFileSync(
  join(shimDir, 'npm'),
  `#!/bin/sh
# readme-tour.test.ts: the tour's npm install is a no-op here (node_modules/ and dist/ are the checkout's,
# built by npm test); every other npm command is the real one.
if [ "$1" = install ]; then echo "[readme-tour] npm install skipped: node_modules and dist are the checkout's"; exit 0; fi
exec ${JSON.stringify(realNpm())} "$@"
`,
);
chmodSync(join(shimDir, 'npm'), 0o755);

async function stopGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (!pgid) return;
  const alive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(-pgid, 'SIGTERM');
  for (let waited = 0; waited < 10_000 && alive(); waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(-pgid, 'SIGKILL');
}

afterAll(async () => {
  for (const child of groups) await stopGroup(child);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a block with bash in `cwd`, as a pasted shell; resolves when the block's last line has run. */
function runBlock(
  block: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; child: ChildProcess }> {
  writeFileSync(join(cwd, 'block.sh'), block);
  const child = spawn('bash', ['block.sh'], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: `${shimDir}${delimiter}${process.env.PATH ?? ''}`, HOME: cwd, ...env },
  });
  groups.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // Done when bash has run the last line ('exit'), not when the pipes close: a server a broken block left
  // writing to this stdout would hold them open. A moment more lets the last output arrive.
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the block did not finish in 90 s:\n${stdout}\n${stderr}`)),
      90_000,
    );
    child.once('exit', () => {
      clearTimeout(timer);
      setTimeout(() => resolve({ stdout, stderr, child }), 300);
    });
  });
}

/** The first stdout line that is a JSON object matching `test`, parsed. */
function jsonLine(
  stdout: string,
  test: (value: Record<string, unknown>) => boolean,
): Record<string, unknown> {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (test(value)) return value;
    } catch {}
  }
  throw new Error(`no such JSON line in:\n${stdout}`);
}

describe('the README tour blocks', () => {
  it('are marked, and install in the foreground before anything runs from dist/', () => {
    const block = tourBlock(README, 'hosted');
    const lines = block.split('\n').map((line) => line.replace(/#.*$/, '').trim());
    const install = lines.findIndex((line) => /^npm (install|ci)\b/.test(line));
    const start = lines.findIndex((line) => /\bnpm start\b/.test(line));
    expect(install, 'npm install on a line of its own').toBeGreaterThanOrEqual(0);
    expect(start).toBeGreaterThan(install);
    // `npm install && npm start &` backgrounds the install too: the next line would run before dist/ exists.
    expect(lines[install]).not.toMatch(/&\s*$/);
    expect(lines[install]).not.toMatch(/&&/);
    const firstDist = lines.findIndex((line) => line.includes('dist/'));
    if (firstDist >= 0) expect(firstDist).toBeGreaterThan(install);
    // The wait for /health comes before the first call, and no address is written out: BASE follows PORT.
    expect(block).toMatch(/\/health/);
    expect(block).not.toMatch(/localhost:300\d/);
    expect(tourBlock(README, 'engine')).not.toMatch(/localhost:300\d/);
  });

  it('hold no comments, which an interactive zsh (no interactive_comments) would run as commands', () => {
    for (const name of ['hosted', 'engine']) {
      const unquoted = tourBlock(README, name).replace(/'[^']*'|"[^"]*"/g, "''");
      const commented = unquoted.split('\n').filter((line) => /(^|\s)#/.test(line));
      expect({ name, commented }).toEqual({ name, commented: [] });
    }
  });

  it('the hosted tour, pasted into bash on a fresh clone, shows each step', {
    timeout: 120_000,
  }, async () => {
    const clone = freshClone('hosted');
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const { stdout, stderr } = await runBlock(tourBlock(README, 'hosted'), clone, { PORT: String(port) });
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}\nlinkhop.log:\n${readFileSync(join(clone, 'linkhop.log'), 'utf8')}`;

    expect(stderr, context).toBe('');
    expect(stdout, context).toMatch(/^\{"ok":true\}$/m);
    expect(stdout, context).toMatch(/^API key: svc_[A-Za-z0-9_-]{43,}$/m);

    const link = jsonLine(stdout, (value) => 'slug' in value && 'shortUrl' in value);
    // Each step's result comes after its label, in order.
    const at = (text: string) => stdout.indexOf(text);
    const order = [
      at('{"ok":true}'),
      at('API key: svc_'),
      at('1. '),
      at('"slug":"rick"'),
      at('2. '),
      at('\n302 '),
      at('3. '),
      at('\nintent://'),
      at('4. '),
      at('{"configured":true'),
    ];
    expect(
      order.every((index, i) => index >= 0 && (i === 0 || index > (order[i - 1] as number))),
      context,
    ).toBe(true);
    expect(link).toMatchObject({
      slug: 'rick',
      shortUrl: `${base}/rick`,
      destination: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      platformKey: 'youtube',
    });
    expect(stdout, context).toMatch(/^302 https:\/\/www\.youtube\.com\/watch\?v=dQw4w9WgXcQ$/m);
    expect(stdout, context).toMatch(
      /^intent:\/\/www\.youtube\.com\/watch\?v=dQw4w9WgXcQ#Intent;scheme=https;package=com\.google\.android\.youtube;.*;end$/m,
    );

    const analytics = jsonLine(stdout, (value) => 'configured' in value && 'total' in value);
    expect(analytics, context).toMatchObject({
      configured: true,
      tier: 'legend',
      days: 7,
      total: 2,
      perLink: [{ slug: 'rick', clicks: 2 }],
    });
    expect(analytics.devices).toEqual(
      expect.arrayContaining([
        { device: 'android', clicks: 1 },
        { device: 'desktop', clicks: 1 },
      ]),
    );

    // What the text around the block promises: the start line in the log, and the dashboard log-in.
    const log = readFileSync(join(clone, 'linkhop.log'), 'utf8');
    expect(log).toContain(`linkhop is serving on ${base}`);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email: 'maya@example.com', password: 'tour-password' }),
    });
    expect(login.status).toBe(200);
  });

  it('the engine snippet, pasted into bash, creates a link and redirects with a 301', {
    timeout: 120_000,
  }, async () => {
    const clone = freshClone('engine');
    const port = await freePort();
    const { stdout, stderr } = await runBlock(tourBlock(README, 'engine'), clone, {
      ENGINE_PORT: String(port),
    });
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}\nengine.log:\n${readFileSync(join(clone, 'engine.log'), 'utf8')}`;

    expect(stderr, context).toBe('');
    expect(jsonLine(stdout, (value) => 'slug' in value)).toEqual({
      slug: 'song',
      url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC',
      shortUrl: `http://localhost:${port}/song`,
      deeplink: 'spotify',
    });
    expect(stdout, context).toMatch(/^301 https:\/\/open\.spotify\.com\/track\/4uLU6hMCjMI75M1A2tKUQC$/m);
  });
});
