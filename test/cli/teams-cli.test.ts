import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';
import { childEnv } from '../helpers/env.js';

/** The teams commands of issue #20, run as the operator runs them: the built CLI on a SQLite file. */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'linkhop-cli-teams-'));
const DATABASE_URL = `sqlite:${join(dir, 'teams.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function linkhop(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: childEnv({ DATABASE_URL }),
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout.trim() };
}

function json(...args: string[]) {
  const result = linkhop(...args);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

// Each command is a process of its own (about a second, more with a scrypt) on a machine others share.
describe('linkhop org, member and key commands for teams', { timeout: 60_000 }, () => {
  it('org list and org show: the organizations, their members with roles, their live keys', () => {
    const org = json(
      'org',
      'create',
      '--name',
      'Listed',
      '--tier',
      'legend',
      '--email',
      'boss@listed.example',
      '--password',
      'long-enough',
    );
    const listed = json('org', 'list').organizations;
    expect(listed).toContainEqual(expect.objectContaining({ id: org.orgId, name: 'Listed', tier: 'legend' }));
    const shown = json('org', 'show', org.orgId);
    expect(shown).toMatchObject({
      id: org.orgId,
      name: 'Listed',
      tier: 'legend',
      activeKeys: 1,
      deletedAt: null,
    });
    expect(shown.members).toEqual([
      expect.objectContaining({ userId: org.userId, email: 'boss@listed.example', role: 'owner' }),
    ]);
    const unknown = linkhop('org', 'show', '00000000-0000-0000-0000-000000000000');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('No organization');
  });

  it('member add: a new person needs a password; an existing one joins a second organization', () => {
    const first = json('org', 'create', '--name', 'First', '--tier', 'hero');
    const second = json('org', 'create', '--name', 'Second', '--tier', 'hero');
    const noPassword = linkhop('member', 'add', first.orgId, '--email', 'ana@x.example', '--role', 'admin');
    expect(noPassword.status).not.toBe(0);
    expect(noPassword.stderr).toContain('password');
    const added = json(
      'member',
      'add',
      first.orgId,
      '--email',
      'Ana@X.example',
      '--role',
      'admin',
      '--password',
      'long-enough',
    );
    expect(added).toMatchObject({ email: 'ana@x.example', role: 'admin' });
    const joined = json('member', 'add', second.orgId, '--email', 'ana@x.example', '--role', 'viewer');
    expect(joined.userId).toBe(added.userId);
    expect(json('org', 'show', second.orgId).members).toEqual([
      expect.objectContaining({ email: 'ana@x.example', role: 'viewer' }),
    ]);
    const twice = linkhop('member', 'add', second.orgId, '--email', 'ana@x.example', '--role', 'viewer');
    expect(twice.stderr).toContain('already a member');
    const badRole = linkhop('member', 'add', second.orgId, '--email', 'b@x.example', '--role', 'chief');
    expect(badRole.stderr).toContain('--role is one of owner, admin, member, viewer');
  });

  it('key create --scopes makes a scoped, named key; key list shows names and scopes, never a key', () => {
    const org = json('org', 'create', '--name', 'Scoped', '--tier', 'legend');
    const key = json(
      'key',
      'create',
      org.orgId,
      '--scopes',
      'links:read,analytics:read',
      '--name',
      'Reporting',
    );
    expect(key).toMatchObject({ name: 'Reporting', scopes: ['links:read', 'analytics:read'] });
    const { keys } = json('key', 'list', org.orgId);
    expect(keys).toContainEqual(
      expect.objectContaining({
        id: key.id,
        name: 'Reporting',
        scopes: ['links:read', 'analytics:read'],
        lastUsedAt: null,
      }),
    );
    expect(keys).toContainEqual(expect.objectContaining({ scopes: ['all'] }));
    expect(JSON.stringify(keys)).not.toContain(key.apiKey);
    const bad = linkhop('key', 'create', org.orgId, '--scopes', 'links:read,everything');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('not: everything');
  });

  it('org purge erases the organization and its links; its plan changes were in the audit log until then', async () => {
    const org = json(
      'org',
      'create',
      '--name',
      'Gone',
      '--tier',
      'hero',
      '--email',
      'gone@x.example',
      '--password',
      'long-enough',
    );
    json('org', 'set-tier', org.orgId, 'legend');
    const store = openStore(DATABASE_URL);
    try {
      const audit = await store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', org.orgId)
        .execute();
      expect(audit.map((row) => [row.action, row.actor_label])).toEqual([
        ['plan.changed', 'operator (linkhop CLI)'],
      ]);
      await store.db
        .insertInto('links')
        .values({
          id: 'purge-1',
          org_id: org.orgId,
          host: '',
          slug: 'purgeme',
          destination: 'https://example.com',
          platform_key: null,
          archived_at: null,
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();
      expect(json('org', 'purge', org.orgId)).toEqual({ orgId: org.orgId, linksDeleted: 1 });
      const left = await Promise.all(
        (['links', 'users', 'audit_log', 'api_keys', 'memberships'] as const).map(async (table) =>
          table === 'users'
            ? store.db.selectFrom('users').select('id').where('email', '=', 'gone@x.example').execute()
            : store.db.selectFrom(table).select('org_id').where('org_id', '=', org.orgId).execute(),
        ),
      );
      expect(left.map((rows) => rows.length)).toEqual([0, 0, 0, 0, 0]);
      expect(linkhop('org', 'show', org.orgId).status).not.toBe(0);
    } finally {
      await store.close();
    }
  });
});
