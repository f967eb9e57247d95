import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_TABLES, ORG_TABLES_KEPT } from '../../src/accounts/erase-repo.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind, storeKinds } from '../helpers/stores.js';
import { invite, makeTeam, PASSWORD } from './teams.js';

describe('account deletion knows every table', () => {
  it('erases every table that holds an org_id, but links and users which are handled apart', async () => {
    const testStore = await sqliteKind.create();
    try {
      const { rows } = await sql<{ name: string }>`
        select m.name as name from sqlite_master m join pragma_table_info(m.name) p
        where m.type = 'table' and p.name = 'org_id' order by m.name`.execute(testStore.store.db);
      const covered = new Set<string>([...ORG_TABLES, ...ORG_TABLES_KEPT]);
      expect(rows.map((row) => row.name).filter((name) => !covered.has(name))).toEqual([]);
    } finally {
      await testStore.dispose();
    }
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`deleting one's account on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
    });
    afterAll(async () => h?.close());

    const visit = (slug: string) => h.visit(slug);

    it('the last owner takes the organization with them; its links keep redirecting with slug and destination only', async () => {
      const team = await makeTeam(h, 'doomed');
      const elsewhere = await makeTeam(h, 'elsewhere');
      // The admin also belongs to another organization: their account stays.
      const token = await invite(h, elsewhere.as.owner, team.emails.admin, 'viewer');
      await team.as.admin('POST', '/api/invites/accept', { token });
      const folder = (await team.as.member('POST', '/api/folders', { name: 'Spring' })).json();
      const link = (
        await team.as.member('POST', '/api/links', {
          url: 'https://example.com/launch',
          slug: 'doomed-launch',
          tags: ['spring'],
          folderId: folder.id,
          password: 'secret-pass',
          utm: { source: 'ig' },
        })
      ).json();
      expect(link.hasPassword).toBe(true);
      const { apiKey } = await h.accounts.mintApiKey(team.orgId);
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'http://127.0.0.1:9/h', events: ['link.created'] },
      });

      await team.as.member('POST', '/api/links', {
        url: 'https://example.com/stats',
        slug: 'doomed-stats',
        publicStats: true,
      });
      const stats = await h.app.inject({ method: 'GET', url: '/api/public/stats/doomed-stats' });
      const wrong = await team.as.owner('POST', '/api/account/delete', { currentPassword: 'nope' });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().issues[0].path).toEqual(['currentPassword']);

      const deleted = await team.as.owner('POST', '/api/account/delete', { currentPassword: PASSWORD });
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(deleted.json()).toEqual({ deleted: true, deletedOrganizations: [team.orgId] });
      expect(String(deleted.headers['set-cookie'])).toMatch(/^lh_session=;/);

      // Permanence: the link still answers, and keeps its password gate (issue #30: erasure never makes
      // anything more public); the password still opens it.
      const after = await visit('doomed-launch');
      expect(after.statusCode).toBe(200);
      expect(after.body).toContain('password');
      expect(after.headers.location).toBeUndefined();
      const unlocked = await h.app.inject({
        method: 'POST',
        url: '/doomed-launch',
        headers: { host: 'lnk.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'password=secret-pass',
      });
      expect(unlocked.statusCode).toBe(303);
      expect(unlocked.headers.location).toBe('/doomed-launch');
      // Its public stats, published before, answer nothing now.
      expect(stats.statusCode).toBe(200);
      const statsAfter = await h.app.inject({ method: 'GET', url: '/api/public/stats/doomed-stats' });
      expect(statsAfter.statusCode).toBe(404);
      const db = h.testStore.store.db;
      // Its visits are no one's analytics any more: a live link's click, taken after the erased one's,
      // reaches the rollups, and the erased organization's tables stay empty (checked below).
      await elsewhere.as.member('POST', '/api/links', {
        url: 'https://example.com/alive',
        slug: 'alive-after',
      });
      expect((await visit('alive-after')).statusCode).toBe(302);
      await expect
        .poll(
          async () =>
            (
              await db
                .selectFrom('click_rollups')
                .select('org_id')
                .where('org_id', '=', elsewhere.orgId)
                .execute()
            ).length,
          { timeout: 10_000 },
        )
        .toBeGreaterThan(0);
      const row = await db
        .selectFrom('links')
        .selectAll()
        .where('id', '=', link.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        slug: 'doomed-launch',
        destination: 'https://example.com/launch',
        password_hash: expect.stringMatching(/.+/),
        public_stats: 0,
        utm: null,
        folder_id: null,
      });
      expect(await db.selectFrom('link_tags').selectAll().where('link_id', '=', link.id).execute()).toEqual(
        [],
      );
      for (const table of ORG_TABLES) {
        const left = await db
          .selectFrom(table as 'audit_log')
          .select('org_id')
          .where('org_id', '=', team.orgId)
          .execute();
        expect(left, table).toEqual([]);
      }
      // Its key is dead, its people who belonged nowhere else are gone, the admin stays elsewhere.
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(401);
      for (const role of ['owner', 'member', 'viewer'] as const) {
        expect((await team.as[role]('GET', '/api/session')).statusCode).toBe(401);
        expect(
          await db.selectFrom('users').select('id').where('email', '=', team.emails[role]).execute(),
        ).toEqual([]);
      }
      const admin = (await team.as.admin('GET', '/api/session')).json();
      expect(admin.org.id).toBe(elsewhere.orgId);
      expect(admin.orgs.map((org: { id: string }) => org.id)).toEqual([elsewhere.orgId]);
    });

    it('anyone else just leaves: the organization stays, with a member.left row in its audit log', async () => {
      const team = await makeTeam(h, 'stays');
      const gone = await team.as.member('POST', '/api/account/delete', { currentPassword: PASSWORD });
      expect(gone.json()).toEqual({ deleted: true, deletedOrganizations: [] });
      const members = (await team.as.owner('GET', '/api/members')).json().members;
      expect(members.map((m: { email: string }) => m.email)).not.toContain(team.emails.member);
      const log = (await team.as.owner('GET', '/api/audit-log?action=member.left')).json().entries;
      expect(log).toEqual([
        expect.objectContaining({
          actor: expect.objectContaining({ label: team.emails.member }),
          target: { type: 'member', id: team.userIds.member },
        }),
      ]);
    });
  });
}
