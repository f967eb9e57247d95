import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';
import { cliOn } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'linkhop-cli-accounts-'));
const DATABASE_URL = `sqlite:${join(dir, 'accounts.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const linkhop = cliOn(DATABASE_URL);

function json(...args: string[]) {
  const result = linkhop(...args);
  expect(result.status, result.stderr).toBe(0);
  expect(result.lines).toHaveLength(1);
  return JSON.parse(result.lines[0] ?? '');
}

describe('linkhop org and key commands', () => {
  it('org create at legend mints a first API key; no user without --email', () => {
    const out = json('org', 'create', '--name', 'Acme', '--tier', 'legend');
    expect(out.orgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.apiKey).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(out.userId).toBeNull();
  });

  it('org create below legend has no key; with --email/--password it makes a user', () => {
    const out = json(
      'org',
      'create',
      '--name',
      'Small',
      '--tier',
      'sidekick',
      '--email',
      'a@b.example',
      '--password',
      'long-enough',
    );
    expect(out.apiKey).toBeNull();
    expect(out.userId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses an unknown tier with a message on stderr and no stdout', () => {
    const result = linkhop('org', 'create', '--name', 'X', '--tier', 'platinum');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('tier must be one of sidekick, hero, legend');
    expect(result.lines).toHaveLength(0);
  });

  it('only a hash of a minted key is stored', async () => {
    const org = json('org', 'create', '--name', 'Hashy', '--tier', 'hero');
    const key = json('key', 'create', org.orgId);
    expect(key.apiKey).toMatch(/^svc_/);
    const store = openStore(DATABASE_URL);
    try {
      const row = await store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', key.id)
        .executeTakeFirstOrThrow();
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(key.apiKey.slice(8));
    } finally {
      await store.close();
    }
  });

  it('key revoke answers {revoked: true} once, then fails for the same key', () => {
    const org = json('org', 'create', '--name', 'Rev', '--tier', 'legend');
    const key = json('key', 'create', org.orgId);
    expect(json('key', 'revoke', key.id)).toEqual({ revoked: true });
    expect(linkhop('key', 'revoke', key.id).status).not.toBe(0);
  });

  it('key create for an unknown organization fails', () => {
    const result = linkhop('key', 'create', '00000000-0000-0000-0000-000000000000');
    expect(result.status).not.toBe(0);
  });

  it('set-tier locks links over the new cap, and an upgrade unlocks them', async () => {
    const org = json('org', 'create', '--name', 'Capped', '--tier', 'hero');
    const store = openStore(DATABASE_URL);
    try {
      const rows = Array.from({ length: 30 }, (_, i) => ({
        id: `cap-${i}`,
        org_id: org.orgId,
        host: '',
        slug: `cap${i}`,
        destination: 'https://example.com',
        platform_key: null,
        archived_at: null,
        created_at: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
        updated_at: 'x',
      }));
      await store.db.insertInto('links').values(rows).execute();
      expect(json('org', 'set-tier', org.orgId, 'sidekick')).toEqual({
        orgId: org.orgId,
        tier: 'sidekick',
        readOnlyLinks: 5,
      });
      const locked = await store.db
        .selectFrom('links')
        .select('id')
        .where('org_id', '=', org.orgId)
        .where('read_only', '=', 1)
        .execute();
      expect(locked.map((row) => row.id).sort()).toEqual(['cap-25', 'cap-26', 'cap-27', 'cap-28', 'cap-29']);
      expect(json('org', 'set-tier', org.orgId, 'hero').readOnlyLinks).toBe(0);
    } finally {
      await store.close();
    }
  });
});
