import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { asCookie, invite, makeTeam, PASSWORD, type Team } from './teams.js';

/**
 * Issue #30: a removed admin kept full access through the keys they made and the invites they sent.
 * Removal, leaving, account deletion and a role dropping below admin now end both, at once, audited;
 * the organization's own keys survive and say so.
 */

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`removal ends what a person held on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => {
      await h?.close();
    });

    const me = (apiKey: string) => h.v1(apiKey, { method: 'GET', url: '/v1/me' });

    /** A key made by `who` from the dashboard, and one made with that key (its maker is still `who`). */
    async function keysOf(team: Team, who: 'owner' | 'admin') {
      const made = await team.as[who]('POST', '/api/keys', { name: `${who}'s key` });
      expect(made.statusCode, made.body).toBe(201);
      expect(made.json().createdBy).toEqual({ userId: team.userIds[who], email: team.emails[who] });
      expect(made.json().organizationKey).toBe(false);
      const child = await h.v1(made.json().apiKey, {
        method: 'POST',
        url: '/v1/keys',
        payload: { name: 'made with a key' },
      });
      expect(child.statusCode, child.body).toBe(201);
      expect(child.json().createdBy).toEqual({ userId: team.userIds[who], email: team.emails[who] });
      return [made.json(), child.json()] as { id: string; apiKey: string }[];
    }

    async function expectAllEnded(team: Team, keys: { id: string; apiKey: string }[], token: string) {
      for (const key of keys) expect((await me(key.apiKey)).statusCode).toBe(401);
      const listed = (await team.as.owner('GET', '/api/keys')).json().keys as {
        id: string;
        revokedAt: string | null;
      }[];
      for (const key of keys)
        expect(listed.find((row) => row.id === key.id)?.revokedAt).toEqual(expect.any(String));
      expect((await asCookie(h, '')('POST', '/api/invites/inspect', { token })).statusCode).toBe(404);
      const log = (await team.as.owner('GET', '/api/audit-log')).json().entries as {
        action: string;
        target: { id: string };
      }[];
      for (const key of keys)
        expect(log.some((entry) => entry.action === 'key.revoked' && entry.target.id === key.id)).toBe(true);
      expect(log.some((entry) => entry.action === 'invite.revoked')).toBe(true);
    }

    it('removing an admin revokes their keys (and keys made with them) and their pending invites', async () => {
      const team = await makeTeam(h, `removed-${kind.name}`);
      const keys = await keysOf(team, 'admin');
      for (const key of keys) expect((await me(key.apiKey)).statusCode).toBe(200);
      const token = await invite(h, team.as.admin, `accomplice-${kind.name}@x.example`, 'admin');
      expect((await team.as.owner('DELETE', `/api/members/${team.userIds.admin}`)).statusCode).toBe(200);
      await expectAllEnded(team, keys, token);
    });

    it('an admin demoted to member loses the keys they made; one who leaves too', async () => {
      const demoted = await makeTeam(h, `demoted-${kind.name}`);
      const keys = await keysOf(demoted, 'admin');
      const token = await invite(h, demoted.as.admin, `later-${kind.name}@x.example`, 'viewer');
      const changed = await demoted.as.owner('PATCH', `/api/members/${demoted.userIds.admin}`, {
        role: 'member',
      });
      expect(changed.statusCode).toBe(200);
      await expectAllEnded(demoted, keys, token);

      const leaving = await makeTeam(h, `leaving-${kind.name}`);
      const other = await makeTeam(h, `leaving-home-${kind.name}`);
      const joinToken = await invite(h, other.as.owner, leaving.emails.admin, 'viewer');
      await leaving.as.admin('POST', '/api/invites/accept', { token: joinToken });
      await leaving.as.admin('POST', '/api/session/org', { orgId: leaving.orgId });
      const leaverKeys = await keysOf(leaving, 'admin');
      const leaverToken = await invite(h, leaving.as.admin, `leaver-${kind.name}@x.example`, 'viewer');
      expect((await leaving.as.admin('POST', '/api/account/leave')).statusCode).toBe(200);
      await expectAllEnded(leaving, leaverKeys, leaverToken);
    });

    it('an admin who deletes their account leaves no key of theirs working in the organizations that stay', async () => {
      const team = await makeTeam(h, `deleter-${kind.name}`);
      const keys = await keysOf(team, 'admin');
      const deleted = await team.as.admin('POST', '/api/account/delete', { currentPassword: PASSWORD });
      expect(deleted.statusCode, deleted.body).toBe(200);
      for (const key of keys) expect((await me(key.apiKey)).statusCode).toBe(401);
      const listed = (await team.as.owner('GET', '/api/keys')).json().keys as {
        id: string;
        createdBy: { email: string | null } | null;
      }[];
      // The maker's account is gone; the list still says a person, not the organization, made it.
      expect(listed.find((row) => row.id === keys[0]?.id)?.createdBy).toEqual({
        userId: team.userIds.admin,
        email: null,
      });
    });

    it("the organization's own keys survive and say so; only owners make one", async () => {
      const team = await makeTeam(h, `org-keys-${kind.name}`);
      const refused = await team.as.admin('POST', '/api/keys', { name: 'mine', organizationKey: true });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('forbidden_role');
      const orgKey = await team.as.owner('POST', '/api/keys', { name: 'CI', organizationKey: true });
      expect(orgKey.statusCode).toBe(201);
      expect(orgKey.json()).toMatchObject({ createdBy: null, organizationKey: true });
      // A second owner removes the first: the organization's key keeps working, the person's does not.
      const personal = (await team.as.owner('POST', '/api/keys', { name: 'personal' })).json();
      await team.as.owner('PATCH', `/api/members/${team.userIds.admin}`, { role: 'owner' });
      expect((await team.as.admin('DELETE', `/api/members/${team.userIds.owner}`)).statusCode).toBe(200);
      expect((await me(orgKey.json().apiKey)).statusCode).toBe(200);
      expect((await me(personal.apiKey)).statusCode).toBe(401);
      // Keys the CLI made (and organization creation's) are the organization's own.
      const cli = await h.org('legend');
      const listed = (await h.v1(cli.apiKey, { method: 'GET', url: '/v1/keys' })).json().keys;
      expect(listed).toContainEqual(expect.objectContaining({ id: cli.keyId, createdBy: null }));
      expect(listed.map((key: { organizationKey: boolean }) => key.organizationKey)).toEqual([true, true]);
    });

    it('a key whose maker lost their seat by any path is refused at the next call', async () => {
      const team = await makeTeam(h, `belt-${kind.name}`);
      const [key] = await keysOf(team, 'admin');
      // A change made behind the services' back (a hand edit, a path that forgot to revoke).
      await h.testStore.store.db
        .updateTable('memberships')
        .set({ role: 'viewer' })
        .where('org_id', '=', team.orgId)
        .where('user_id', '=', team.userIds.admin)
        .execute();
      expect((await me(key?.apiKey as string)).statusCode).toBe(401);
    });
  });
}
