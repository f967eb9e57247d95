import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditRepo } from '../../src/audit/repo.js';
import { createAuditLog } from '../../src/audit/service.js';
import { makeTeam, type Team } from '../accounts/teams.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

interface Entry {
  id: string;
  at: string;
  actor: { type: string; id: string; label: string };
  action: string;
  target: { type: string; id: string };
  changes: Record<string, unknown>;
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`the audit log on ${kind.name}`, () => {
    let h: HostedHarness;
    let team: Team;
    beforeAll(async () => {
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      team = await makeTeam(h, 'audit');
    });
    afterAll(async () => h?.close());

    const entries = async (query = '') => {
      const response = await team.as.admin('GET', `/api/audit-log${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { entries: Entry[]; nextCursor: string | null };
    };

    it('records a link created, edited and archived by a person, with the changed fields and never the password', async () => {
      const created = (await team.as.member('POST', '/api/links', { url: 'https://example.com/a' })).json();
      const edited = await team.as.member('PATCH', `/api/links/${created.id}`, {
        url: 'https://example.com/b',
        password: 'hunter2-secret',
      });
      expect(edited.statusCode, edited.body).toBe(200);
      await team.as.member('POST', `/api/links/${created.id}/archive`);

      const { entries: rows } = await entries(`?targetId=${created.id}`);
      expect(rows.map((row) => row.action)).toEqual(['link.archived', 'link.updated', 'link.created']);
      for (const row of rows) {
        expect(row.actor).toEqual({ type: 'user', id: team.userIds.member, label: team.emails.member });
        expect(row.target).toEqual({ type: 'link', id: created.id });
      }
      const [archived, updated, made] = rows as [Entry, Entry, Entry];
      expect(updated.changes).toEqual({
        destination: { from: 'https://example.com/a', to: 'https://example.com/b' },
        hasPassword: { from: false, to: true },
        password: { changed: true },
      });
      expect(made.changes.destination).toEqual({ from: null, to: 'https://example.com/a' });
      expect(archived.changes).toEqual({ archivedAt: { from: null, to: expect.any(String) } });
      expect(JSON.stringify(rows)).not.toContain('hunter2-secret');
    });

    it('names a key by its name; key creation and revocation and webhooks are logged without secrets', async () => {
      const { apiKey } = await h.accounts.mintApiKey(team.orgId, { name: 'Zapier', scopes: ['all'] });
      const key = await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/keys',
        payload: { name: 'CI deploys', scopes: ['links:write'] },
      });
      expect(key.statusCode, key.body).toBe(201);
      await h.v1(apiKey, { method: 'DELETE', url: `/v1/keys/${key.json().id}` });
      const hook = await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'http://127.0.0.1:9/hook', events: ['link.created'] },
      });
      expect(hook.statusCode, hook.body).toBe(201);

      const { entries: rows } = await entries('?limit=3');
      expect(rows.map((row) => row.action)).toEqual(['webhook.created', 'key.revoked', 'key.created']);
      const byKey = rows.map((row) => row.actor);
      expect(byKey.every((actor) => actor.type === 'key' && actor.label === 'Zapier')).toBe(true);
      expect(rows[2]?.changes).toEqual({
        name: { from: null, to: 'CI deploys' },
        scopes: { from: null, to: ['links:write'] },
        // Made with the organization's own key, so the organization's own too (issue #30).
        organizationKey: { from: null, to: true },
      });
      const text = JSON.stringify(rows);
      expect(text).not.toContain(key.json().apiKey);
      expect(text).not.toContain(hook.json().secret);
    });

    it('logs member and invite changes and plan changes', async () => {
      await team.as.owner('PATCH', `/api/members/${team.userIds.viewer}`, { role: 'member' });
      const invite = (
        await team.as.admin('POST', '/api/invites', { email: 'new@audit.example', role: 'viewer' })
      ).json();
      await team.as.admin('DELETE', `/api/invites/${invite.id}`);
      await h.accounts.setTier(team.orgId, 'hero');
      await h.accounts.setTier(team.orgId, 'legend');
      const { entries: rows } = await entries('?limit=5');
      expect(rows.map((row) => row.action)).toEqual([
        'plan.changed',
        'plan.changed',
        'invite.revoked',
        'invite.created',
        'member.role_changed',
      ]);
      expect(rows[1]?.changes).toEqual({ tier: { from: 'legend', to: 'hero' } });
      expect(rows[4]?.changes).toEqual({ role: { from: 'viewer', to: 'member' } });
      expect(rows[4]?.actor.label).toBe(team.emails.owner);
    });

    it('changes made in one millisecond are listed newest first, in the order they were made', async () => {
      // A frozen clock: every row has the same time, so only the ids can keep the order.
      const frozen = new Date('2026-11-27T22:00:00.000Z');
      const log = createAuditLog({ repo: createAuditRepo(h.testStore.store), now: () => frozen });
      const orgId = team.orgId;
      const actor = { type: 'user' as const, id: team.userIds.owner, label: 'script' };
      const made: string[] = [];
      for (let i = 0; i < 40; i++) {
        const target = { type: 'link', id: `ordered-${i}` };
        await log.record(h.testStore.store.db, { orgId, actor }, { action: 'link.updated', target });
        made.push(target.id);
      }
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await log.list(orgId, { limit: 7, ...(cursor ? { cursor } : {}) });
        listed.push(...page.entries.filter((e) => e.at === frozen.toISOString()).map((e) => e.target.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toEqual(made.reverse());
    });

    it('a change that fails writes no row: the row is in the change’s transaction', async () => {
      const first = (
        await team.as.member('POST', '/api/links', { url: 'https://example.com/1', slug: 'taken-one' })
      ).json();
      const second = (await team.as.member('POST', '/api/links', { url: 'https://example.com/2' })).json();
      const clash = await team.as.member('PATCH', `/api/links/${second.id}`, { slug: first.slug });
      expect(clash.statusCode).toBe(409);
      const { entries: rows } = await entries(`?targetId=${second.id}`);
      expect(rows.map((row) => row.action)).toEqual(['link.created']);
    });

    it('pages newest first with a cursor, filters by action, and refuses a forged cursor', async () => {
      const all: Entry[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page = await entries(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.entries.length).toBeLessThanOrEqual(4);
        all.push(...page.entries);
        cursor = page.nextCursor;
      }
      const everything = (await entries('?limit=200')).entries;
      expect(all.map((row) => row.id)).toEqual(everything.map((row) => row.id));
      expect(new Set(all.map((row) => row.id)).size).toBe(all.length);
      const times = all.map((row) => row.at);
      expect([...times].sort().reverse()).toEqual(times);

      const created = (await entries('?action=link.created&limit=200')).entries;
      expect(created.length).toBeGreaterThanOrEqual(3);
      expect(created.every((row) => row.action === 'link.created')).toBe(true);

      const forged = await team.as.admin('GET', '/api/audit-log?cursor=not-a-cursor');
      expect(forged.statusCode).toBe(400);
      expect(forged.json()).toMatchObject({
        error: 'invalid_query',
        message: expect.stringMatching(/cursor/),
      });
    });

    it('refuses a cursor whose decoded text is not what the API gave out: NUL, controls, other shapes', async () => {
      // The edge rule sees only the base64url; the decoded halves reached PostgreSQL, which answered 500 on
      // NUL (issue #30). Each is a 400 naming the cursor, on both stores.
      const real = (await entries('?limit=1')).nextCursor as string;
      const [at, id] = JSON.parse(Buffer.from(real, 'base64url').toString('utf8')) as [string, string];
      const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const forged = [
        [`${at}\u0000`, id],
        [at, `${id}\u0000`],
        ['\u0000', '\u0000'],
        [at.replace('T', '\u001bT'), id],
        ['yesterday', id],
        [at, 'not-an-id'],
        [at, id, 'extra'],
        { at, id },
        'just text',
      ];
      for (const value of forged) {
        const response = await team.as.admin('GET', `/api/audit-log?cursor=${cursorOf(value)}`);
        expect(response.statusCode, JSON.stringify(value)).toBe(400);
        expect(response.json()).toEqual({
          error: 'invalid_query',
          message: 'cursor: not a cursor this API gave out',
        });
      }
      const v1 = await h.v1((await h.org('legend')).apiKey, {
        method: 'GET',
        url: `/v1/audit-log?cursor=${cursorOf([`${at}\u0000`, id])}`,
      });
      expect(v1.statusCode).toBe(400);
      expect(v1.json().error).toBe('invalid_query');
      expect((await entries(`?limit=1&cursor=${real}`)).entries).toHaveLength(1);
    });

    it('exports CSV with every row, formula cells neutralized', async () => {
      await h.accounts
        .mintApiKey(team.orgId, { name: '=HYPERLINK("x")', scopes: ['all'] })
        .then(({ apiKey }) =>
          h.v1(apiKey, { method: 'POST', url: '/v1/folders', payload: { name: 'Spring' } }),
        );
      const response = await team.as.owner('GET', '/api/audit-log/export');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      const lines = response.body.trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,at,actor_type,actor_id,actor_label,action,target_type,target_id,changes');
      expect(lines.length - 1).toBe((await entries('?limit=200')).entries.length);
      expect(lines[1]).toContain(`key,`);
      expect(lines[1]).toContain(`"'=HYPERLINK(""x"")",folder.created,folder,`);
    });

    it('is for owners and admins: members and viewers get 403 forbidden_role', async () => {
      expect((await team.as.member('GET', '/api/audit-log')).json().error).toBe('forbidden_role');
      expect((await team.as.viewer('GET', '/api/audit-log/export')).json().error).toBe('forbidden_role');
    });
  });
}
