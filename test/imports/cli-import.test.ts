import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeShlink } from '../fakes/shlink-server.js';
import { childEnv } from '../helpers/env.js';

/**
 * `linkhop import` as a user runs it: the built CLI, a real SQLite file, the Shlink fake on loopback.
 * Output a script reads is one JSON line on stdout; usage errors go to stderr with a non-zero status.
 */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'linkhop-import-cli-'));
const database = `sqlite:${join(dir, 'cli.db')}`;
const env = (extra: Record<string, string> = {}) =>
  childEnv({ DATABASE_URL: database, BASE_URL: 'https://lnk.example', ...extra });

function run(args: string[], extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env: env(extra), encoding: 'utf8' });
}

/** Runs asynchronously, so the fake in this process can answer it. */
function runAsync(args: string[], extra: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('linkhop import (CLI)', () => {
  const shlink = new FakeShlink().seed(130);
  let orgId = '';
  beforeAll(async () => {
    await shlink.start();
    const created = run(['org', 'create', '--name', 'Movers', '--tier', 'legend']);
    expect(created.status, created.stderr).toBe(0);
    orgId = (JSON.parse(created.stdout) as { orgId: string }).orgId;
  });
  afterAll(async () => {
    await shlink.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a CSV and prints the finished import as one JSON line', () => {
    const file = join(dir, 'links.csv');
    writeFileSync(file, 'url,slug,tags,title\nhttps://example.com/a,cli-a,x|y,A\nnot a url,cli-b,,\n');
    const result = run(['import', 'csv', '--org', orgId, '--file', file]);
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      source: 'csv',
      status: 'done',
      total: 2,
      imported: 1,
      skipped: 0,
      failed: 1,
      errors: [{ item: 'row 3', reason: 'url: `url` must be a valid http(s) URL' }],
    });
  });

  it('pages a Shlink server through the guard when IMPORT_ALLOW_PRIVATE_SOURCES=1, and refuses it otherwise', async () => {
    const args = [
      'import',
      'shlink',
      '--org',
      orgId,
      '--base-url',
      shlink.origin,
      '--api-key',
      shlink.apiKey,
    ];
    const refused = await runAsync(args);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toBe('linkhop: baseUrl: Only https URLs are allowed\n');
    expect(refused.stdout).toBe('');

    const result = await runAsync(args, { IMPORT_ALLOW_PRIVATE_SOURCES: '1' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'done', total: 130, imported: 130 });
    // No terminal here: no progress bar, nothing else on stdout.
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a failed import prints its JSON line and exits 1; a missing flag is a usage error', async () => {
    const failed = await runAsync(
      ['import', 'shlink', '--org', orgId, '--base-url', shlink.origin, '--api-key', 'wrong'],
      { IMPORT_ALLOW_PRIVATE_SOURCES: '1' },
    );
    expect(failed.status).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      status: 'failed',
      errors: [{ item: 'Shlink API', reason: expect.stringContaining('Invalid API key') }],
    });
    const usage = run(['import', 'kutt', '--org', orgId, '--base-url', 'https://kutt.to']);
    expect(usage.status).not.toBe(0);
    expect(usage.stderr).toContain('--api-key: `apiKey` is required');
    expect(run(['import', 'ftp', '--org', orgId]).stderr).toContain('the source is one of csv, bitly');
  });
});
