import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';
import { childEnv } from '../helpers/env.js';
import { UA } from '../helpers/user-agents.js';

/** `linkhop link create|list|get|stats --org ORG` (issue #32, item 8), as a person runs them. */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'linkhop-cli-links-'));
const DATABASE_URL = `sqlite:${join(dir, 'links.db')}`;
const BASE_URL = 'https://lnk.example';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function linkhop(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: childEnv({ DATABASE_URL, BASE_URL }),
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A command that worked: exit 0, nothing on stderr, one JSON line on stdout. */
function json(...args: string[]) {
  const result = linkhop(...args);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const lines = result.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

/** A command that failed: exit non-zero, nothing on stdout, one line on stderr. */
function failure(...args: string[]): string {
  const result = linkhop(...args);
  expect(result.status).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  return result.stderr.trimEnd();
}

const org = (tier: string) =>
  json('org', 'create', '--name', `Links ${tier}`, '--tier', tier).orgId as string;

// Each step is a CLI process (about a second to start, several on a loaded 2-core machine).
describe('linkhop link', { timeout: 60_000 }, () => {
  const hero = org('hero');

  it('create makes a link as POST /v1/links does and prints it', () => {
    const link = json(
      'link',
      'create',
      'https://example.com/spring',
      '--org',
      hero,
      '--slug',
      'spring',
      '--tags',
      'promo, 2026',
    );
    expect(link).toMatchObject({
      slug: 'spring',
      shortUrl: `${BASE_URL}/spring`,
      destination: 'https://example.com/spring',
      tags: ['promo', '2026'],
      archived: false,
    });
    expect(link.id).toMatch(/^[0-9a-f-]{36}$/);
    // Without --slug the service picks one, as the API does.
    expect(json('link', 'create', 'https://example.com/other', '--org', hero).slug).toMatch(
      /^[A-Za-z0-9_-]{7}$/,
    );
  });

  it('create is refused in one line by the API rules: the URL, a taken slug, the plan', () => {
    expect(failure('link', 'create', 'not a url', '--org', hero)).toBe(
      'linkhop: `url` must be a valid http(s) URL',
    );
    expect(failure('link', 'create', 'https://example.com/x', '--org', hero, '--slug', 'spring')).toBe(
      'linkhop: This slug is already taken',
    );
    const sidekick = org('sidekick');
    expect(failure('link', 'create', 'https://example.com/x', '--org', sidekick, '--slug', 'mine')).toBe(
      'linkhop: Your plan does not include customSlugs; upgrade to use it',
    );
    expect(failure('link', 'create', 'https://example.com/x', '--org', hero, '--max-clicks', '5')).toBe(
      'linkhop: expiredUrl is required when maxClicks is set: where visits go once the link expires',
    );
    expect(failure('link', 'create', 'https://example.com/x')).toBe(
      "linkhop: link create needs --org ORG_ID (the organization's id: linkhop org list)",
    );
    expect(failure('link', 'create', 'https://example.com/x', '--org', 'no-such-org')).toBe(
      'linkhop: No organization no-such-org',
    );
  });

  it('list pages like GET /v1/links: newest first, --limit and --offset, the same cap', () => {
    const paged = org('hero');
    for (const slug of ['one', 'two', 'three'])
      json('link', 'create', `https://example.com/${slug}`, '--org', paged, '--slug', `paged-${slug}`);
    const all = json('link', 'list', '--org', paged);
    expect(all.links.map((link: { slug: string }) => link.slug)).toEqual([
      'paged-three',
      'paged-two',
      'paged-one',
    ]);
    const first = json('link', 'list', '--org', paged, '--limit', '2');
    expect(first.links.map((link: { slug: string }) => link.slug)).toEqual(['paged-three', 'paged-two']);
    const next = json('link', 'list', '--org', paged, '--limit', '2', '--offset', '2');
    expect(next.links.map((link: { slug: string }) => link.slug)).toEqual(['paged-one']);
    const found = json('link', 'list', '--org', paged, '--q', 'two');
    expect(found.links.map((link: { slug: string }) => link.slug)).toEqual(['paged-two']);
    expect(failure('link', 'list', '--org', paged, '--limit', '500')).toBe('linkhop: `limit` is at most 200');
  });

  it("get reads one link of the organization; another organization's is not found", () => {
    const owner = org('hero');
    const made = json('link', 'create', 'https://example.com/mine', '--org', owner, '--slug', 'got-it');
    expect(json('link', 'get', made.id, '--org', owner)).toEqual(made);
    expect(failure('link', 'get', made.id, '--org', hero)).toBe('linkhop: No such link');
    expect(failure('link', 'get', '00000000-0000-4000-8000-000000000000', '--org', owner)).toBe(
      'linkhop: No such link',
    );
    expect(failure('link', 'get', 'not-an-id', '--org', owner)).toBe('linkhop: No such link');
  });

  it('a usage mistake is one line; link help prints every flag', () => {
    expect(failure('link', 'delete', 'x', '--org', hero)).toMatch(
      /^linkhop: usage: linkhop link create URL \| list/,
    );
    expect(failure('link', 'create', '--org', hero)).toBe(
      'linkhop: link create needs the URL: linkhop link create URL --org ORG_ID',
    );
    const help = linkhop('link', 'help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--expires-at ISO');
  });

  it("the link is the operator's in the audit log", async () => {
    const audited = org('hero');
    const made = json('link', 'create', 'https://example.com/audit', '--org', audited, '--slug', 'audited');
    const store = openStore(DATABASE_URL);
    try {
      const rows = await store.db.selectFrom('audit_log').selectAll().where('org_id', '=', audited).execute();
      const created = rows.find((row) => row.action === 'link.created');
      expect(created).toMatchObject({ target_id: made.id, actor_id: 'operator' });
    } finally {
      await store.close();
    }
  });

  it('stats gives GET /v1/links/{id}/stats: the visits a running server recorded', async () => {
    const owner = org('hero');
    const made = json('link', 'create', 'https://example.com/counted', '--org', owner, '--slug', 'counted');
    expect(json('link', 'stats', made.id, '--org', owner)).toEqual({
      configured: true,
      total: 0,
      sources: { link: 0, qr: 0 },
      appOpenRate: null,
      outcomes: { opened: 0, browser: 0, broken: 0 },
    });

    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: childEnv({ DATABASE_URL, BASE_URL, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
      });
      for (let i = 0; i < 3; i++) {
        const visit = await fetch(`${url}/counted`, {
          redirect: 'manual',
          headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
        });
        expect(visit.status).toBe(302);
        await visit.arrayBuffer();
      }
    } finally {
      // SIGTERM writes every buffered click before the process exits.
      child.kill('SIGTERM');
      await exited;
    }
    expect(json('link', 'stats', made.id, '--org', owner)).toMatchObject({ configured: true, total: 3 });
    expect(failure('link', 'stats', made.id, '--org', hero)).toBe('linkhop: No such link');
    // A plan without full analytics gets the API's answer for it too: the total, and why no more.
    const small = org('sidekick');
    const basic = json('link', 'create', 'https://example.com/basic', '--org', small);
    expect(json('link', 'stats', basic.id, '--org', small).upgrade).toEqual(expect.any(String));
  });
});
