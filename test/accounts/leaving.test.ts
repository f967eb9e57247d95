import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEraseService } from '../../src/accounts/erase.js';
import { createEraseRepo } from '../../src/accounts/erase-repo.js';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { addVerifiedDomain } from '../helpers/domains.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';
import { invite, makeTeam, PASSWORD, type Team } from './teams.js';

/**
 * Issue #20, account basics: a person leaves an organization (POST /api/account/leave), the last owner
 * cannot; deleting the last owner's account erases the organization but its links keep redirecting on
 * their hostname with their slug and destination, until the operator's `linkhop org purge`.
 */

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`leaving an organization on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => h?.close());

    /** Makes `who` of `team` a viewer of a second organization too, through an invite. */
    async function alsoIn(team: Team, who: 'owner' | 'admin' | 'member' | 'viewer', tag: string) {
      const other = await makeTeam(h, tag);
      const token = await invite(h, other.as.owner, team.emails[who], 'viewer');
      const joined = await team.as[who]('POST', '/api/invites/accept', { token });
      expect(joined.statusCode, joined.body).toBe(200);
      // Accepting switched the session to the new organization: back to the team's.
      await team.as[who]('POST', '/api/session/org', { orgId: team.orgId });
      return other;
    }

    it('a member leaves: gone from the list, the session moves to their other organization, one audit row', async () => {
      const team = await makeTeam(h, `leave-${kind.name}`);
      const other = await alsoIn(team, 'member', `leave-other-${kind.name}`);
      const left = await team.as.member('POST', '/api/account/leave');
      expect(left.statusCode, left.body).toBe(200);
      expect(left.json()).toMatchObject({ org: { id: other.orgId }, role: 'viewer' });
      expect(left.json().orgs.map((org: { id: string }) => org.id)).toEqual([other.orgId]);

      const members = (await team.as.owner('GET', '/api/members')).json().members;
      expect(members.map((m: { email: string }) => m.email)).not.toContain(team.emails.member);
      // No way back in without a new invite.
      const back = await team.as.member('POST', '/api/session/org', { orgId: team.orgId });
      expect(back.statusCode).toBe(404);
      const log = (await team.as.owner('GET', '/api/audit-log?action=member.left')).json().entries;
      expect(log).toEqual([
        expect.objectContaining({
          actor: { type: 'user', id: team.userIds.member, label: team.emails.member },
          target: { type: 'member', id: team.userIds.member },
          changes: { email: team.emails.member, role: { from: 'member', to: null } },
        }),
      ]);
      // Their account stays, logged in where they still belong.
      expect((await team.as.member('GET', '/api/links')).statusCode).toBe(200);
    });

    it('a viewer may leave too: leaving needs no power over others', async () => {
      const team = await makeTeam(h, `leave-viewer-${kind.name}`);
      await alsoIn(team, 'viewer', `leave-viewer-other-${kind.name}`);
      expect((await team.as.viewer('POST', '/api/account/leave')).statusCode).toBe(200);
    });

    it('the last owner cannot leave (409 last_owner); with a second owner they can', async () => {
      const team = await makeTeam(h, `leave-owner-${kind.name}`);
      await alsoIn(team, 'owner', `leave-owner-other-${kind.name}`);
      const refused = await team.as.owner('POST', '/api/account/leave');
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toEqual({
        error: 'last_owner',
        message: 'An organization keeps at least one owner: make someone else owner first',
      });
      expect((await team.as.owner('GET', '/api/members')).json().members).toHaveLength(4);
      await team.as.owner('PATCH', `/api/members/${team.userIds.admin}`, { role: 'owner' });
      expect((await team.as.owner('POST', '/api/account/leave')).statusCode).toBe(200);
      const owners = (await team.as.admin('GET', '/api/members')).json().members;
      expect(owners.filter((m: { role: string }) => m.role === 'owner')).toEqual([
        expect.objectContaining({ email: team.emails.admin }),
      ]);
    });

    it('nobody leaves their only organization: that is deleting the account (409 only_organization)', async () => {
      const team = await makeTeam(h, `leave-only-${kind.name}`);
      const refused = await team.as.member('POST', '/api/account/leave');
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toEqual({
        error: 'only_organization',
        message: 'This is your only organization: delete your account in Settings instead',
      });
      expect((await team.as.member('GET', '/api/session')).json().org.id).toBe(team.orgId);
    });

    it('two owners leaving at once cannot leave the organization without one', async () => {
      const team = await makeTeam(h, `leave-race-${kind.name}`);
      await alsoIn(team, 'owner', `leave-race-o-${kind.name}`);
      await alsoIn(team, 'admin', `leave-race-a-${kind.name}`);
      await team.as.owner('PATCH', `/api/members/${team.userIds.admin}`, { role: 'owner' });
      const answers = await Promise.all([
        team.as.owner('POST', '/api/account/leave'),
        team.as.admin('POST', '/api/account/leave'),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
      const owners = (
        await h.testStore.store.db
          .selectFrom('memberships')
          .select('user_id')
          .where('org_id', '=', team.orgId)
          .where('role', '=', 'owner')
          .execute()
      ).length;
      expect(owners).toBe(1);
    });

    it('the last owner deleting their account erases the organization; its links keep redirecting, on their hostname, until purged', async () => {
      const team = await makeTeam(h, `erase-${kind.name}`);
      const host = `go-${randomUUID().slice(0, 8)}.erase.example`;
      await addVerifiedDomain(h.testStore.store, team.orgId, host);
      const onHost = (
        await team.as.member('POST', '/api/links', {
          url: 'https://example.com/on-host',
          hostname: host,
          slug: 'spring',
          password: 'link-password',
        })
      ).json();
      expect(onHost.hostname).toBe(host);
      const plain = (
        await team.as.member('POST', '/api/links', {
          url: 'https://example.com/plain',
          slug: `p-${kind.name}`,
        })
      ).json();
      const unvisited = (
        await team.as.member('POST', '/api/links', {
          url: 'https://example.com/later',
          slug: `u-${kind.name}`,
        })
      ).json();

      const deleted = await team.as.owner('POST', '/api/account/delete', { currentPassword: PASSWORD });
      expect(deleted.json()).toEqual({ deleted: true, deletedOrganizations: [team.orgId] });

      const visit = (hostname: string, slug: string) =>
        h.app.inject({
          method: 'GET',
          url: `/${slug}`,
          headers: { host: hostname, 'user-agent': UA.desktopChrome },
        });
      // Permanence: slug, hostname and destination survive, and so does the password gate (issue #30:
      // erasure never makes a protected destination public).
      const custom = await visit(host, 'spring');
      expect(custom.statusCode).toBe(200);
      expect(custom.headers.location).toBeUndefined();
      expect(custom.body).not.toContain('example.com/on-host');
      const bare = await visit('lnk.example', plain.slug);
      expect(bare.statusCode).toBe(302);
      expect(bare.headers.location).toMatch(/^https:\/\/example\.com\/plain/);
      const kept = await h.testStore.store.db
        .selectFrom('links')
        .select(['host', 'slug', 'destination', 'password_hash'])
        .where('org_id', '=', team.orgId)
        .orderBy('slug')
        .execute();
      expect(kept).toHaveLength(3);
      expect(kept.find((row) => row.slug === 'spring')).toEqual({
        host,
        slug: 'spring',
        destination: 'https://example.com/on-host',
        password_hash: expect.stringMatching(/.+/),
      });
      // The organization is gone for everyone: nobody can log in to it.
      for (const role of ['owner', 'admin', 'member', 'viewer'] as const)
        expect((await team.as[role]('GET', '/api/session')).statusCode).toBe(401);

      // `linkhop org purge` (its service, as the CLI builds it): the links go too.
      const erase = createEraseService({
        repo: createEraseRepo(h.testStore.store),
        accounts: createAccountRepo(h.testStore.store),
        now: () => new Date(),
      });
      expect(await erase.purgeOrganization(team.orgId)).toEqual({ orgId: team.orgId, linksDeleted: 3 });
      expect((await visit('lnk.example', unvisited.slug)).statusCode).toBe(404);
    });
  });
}
