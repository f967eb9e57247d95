import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { decodedHeader, nthMailTo, readableBody } from '../helpers/mailbox.js';
import { storeKinds } from '../helpers/stores.js';
import { asCookie, login, makeTeam, PASSWORD } from './teams.js';

const tokenOf = (acceptUrl: string) => /#\/invite\/([A-Za-z0-9_-]+)$/.exec(acceptUrl)?.[1] as string;
/** The accept link of the `n`th invite mail to `email`: where the invitee, and only they, find it. */
const mailedLink = async (smtp: SmtpSink, email: string, n = 1) =>
  /(https:\/\/\S+#\/invite\/[A-Za-z0-9_-]+)/.exec(
    readableBody(await nthMailTo(smtp, email, n)),
  )?.[1] as string;

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`members, roles and invites on ${kind.name}`, () => {
    let h: HostedHarness;
    let smtp: SmtpSink;
    beforeAll(async () => {
      smtp = await startSmtp();
      h = await startHosted(kind, { SMTP_URL: smtp.url });
    });
    afterAll(async () => {
      await h?.close();
      await smtp?.close();
    });

    it('lists the members with their roles, to viewers too', async () => {
      const team = await makeTeam(h, 'list');
      const response = await team.as.viewer('GET', '/api/members');
      expect(response.statusCode).toBe(200);
      const members = response.json().members as { userId: string; email: string; role: string }[];
      expect(members.map(({ email, role }) => ({ email, role }))).toEqual([
        { email: team.emails.owner, role: 'owner' },
        { email: team.emails.admin, role: 'admin' },
        { email: team.emails.member, role: 'member' },
        { email: team.emails.viewer, role: 'viewer' },
      ]);
      expect(members[0]).toMatchObject({ userId: team.userIds.owner, createdAt: expect.any(String) });
    });

    it('admins change roles but not owners; only an owner makes or unmakes one', async () => {
      const team = await makeTeam(h, 'roles');
      const toViewer = await team.as.admin('PATCH', `/api/members/${team.userIds.member}`, {
        role: 'viewer',
      });
      expect(toViewer.statusCode).toBe(200);
      expect(toViewer.json()).toMatchObject({ email: team.emails.member, role: 'viewer' });

      const promote = await team.as.admin('PATCH', `/api/members/${team.userIds.member}`, { role: 'owner' });
      expect(promote.statusCode).toBe(403);
      expect(promote.json().error).toBe('forbidden_role');
      const demote = await team.as.admin('PATCH', `/api/members/${team.userIds.owner}`, { role: 'admin' });
      expect(demote.json().error).toBe('forbidden_role');
      const remove = await team.as.admin('DELETE', `/api/members/${team.userIds.owner}`);
      expect(remove.json().error).toBe('forbidden_role');

      const made = await team.as.owner('PATCH', `/api/members/${team.userIds.admin}`, { role: 'owner' });
      expect(made.json().role).toBe('owner');
      // The role applies on the very next request.
      const session = await team.as.admin('GET', '/api/session');
      expect(session.json().role).toBe('owner');
    });

    it('the last owner can be neither demoted nor removed (409 last_owner)', async () => {
      const team = await makeTeam(h, 'last');
      const demote = await team.as.owner('PATCH', `/api/members/${team.userIds.owner}`, { role: 'admin' });
      expect(demote.statusCode).toBe(409);
      expect(demote.json()).toEqual({
        error: 'last_owner',
        message: 'An organization keeps at least one owner: make someone else owner first',
      });
      expect((await team.as.owner('DELETE', `/api/members/${team.userIds.owner}`)).json().error).toBe(
        'last_owner',
      );
      // With a second owner, the first may step down.
      await team.as.owner('PATCH', `/api/members/${team.userIds.admin}`, { role: 'owner' });
      const stepDown = await team.as.owner('PATCH', `/api/members/${team.userIds.owner}`, { role: 'member' });
      expect(stepDown.statusCode).toBe(200);
      const members = (await team.as.viewer('GET', '/api/members')).json().members;
      expect(members.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
    });

    it('a removed member loses access at once; a key with `all` manages members through /v1', async () => {
      const team = await makeTeam(h, 'remove');
      const { apiKey } = await h.accounts.mintApiKey(team.orgId);
      const removed = await h.v1(apiKey, { method: 'DELETE', url: `/v1/members/${team.userIds.viewer}` });
      expect(removed.json()).toEqual({ deleted: true });
      expect((await team.as.viewer('GET', '/api/links')).statusCode).toBe(401);
      const listed = (await h.v1(apiKey, { method: 'GET', url: '/v1/members' })).json().members;
      expect(listed.map((m: { email: string }) => m.email)).not.toContain(team.emails.viewer);
      // A key is no owner: it cannot touch owners.
      const demote = await h.v1(apiKey, {
        method: 'PATCH',
        url: `/v1/members/${team.userIds.owner}`,
        payload: { role: 'viewer' },
      });
      expect(demote.json().error).toBe('forbidden_role');
      expect(
        (await h.v1(apiKey, { method: 'PATCH', url: '/v1/members/nobody', payload: { role: 'viewer' } }))
          .statusCode,
      ).toBe(404);
    });

    it('invites a new person by email; the link sets a password, joins with the role, and works once', async () => {
      const team = await makeTeam(h, 'invite');
      const created = await team.as.admin('POST', '/api/invites', {
        email: 'New@Person.example',
        role: 'member',
      });
      expect(created.statusCode).toBe(201);
      const invite = created.json();
      expect(invite).toMatchObject({ email: 'new@person.example', role: 'member', delivery: 'mail' });
      // The link goes to the invited address only, never back to the inviter (issue #30).
      expect(invite).not.toHaveProperty('acceptUrl');
      expect(created.body).not.toMatch(/#\/invite\//);
      const days = (Date.parse(invite.expiresAt) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.99);
      expect(days).toBeLessThanOrEqual(7);
      const mail = await nthMailTo(smtp, 'new@person.example');
      expect(decodedHeader(mail.headers.get('subject'))).toBe('You are invited to "Team invite" on linkhop');
      expect(readableBody(mail)).toContain(`${team.emails.admin} invited you to join the workspace`);
      const acceptUrl = await mailedLink(smtp, 'new@person.example');
      expect(acceptUrl).toMatch(new RegExp(`^${BASE_URL}/#/invite/[A-Za-z0-9_-]{43}$`));

      const pending = (await team.as.owner('GET', '/api/invites')).json().invites;
      expect(pending).toEqual([expect.objectContaining({ id: invite.id, email: 'new@person.example' })]);
      expect(JSON.stringify(pending)).not.toContain(tokenOf(acceptUrl));

      const token = tokenOf(acceptUrl);
      const anonymous = asCookie(h, '');
      const details = await anonymous('POST', '/api/invites/inspect', { token });
      expect(details.json()).toEqual({
        orgName: 'Team invite',
        email: 'new@person.example',
        role: 'member',
        expiresAt: invite.expiresAt,
      });
      const short = await anonymous('POST', '/api/invites/accept', { token, password: 'short' });
      expect(short.statusCode).toBe(400);
      expect(short.json().message).toMatch(/password/);
      const accepted = await anonymous('POST', '/api/invites/accept', { token, password: 'a new password' });
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toMatchObject({ role: 'member', org: { id: team.orgId } });
      const cookie = String(accepted.headers['set-cookie']).split(';')[0] as string;
      expect((await asCookie(h, cookie)('GET', '/api/links')).statusCode).toBe(200);
      await login(h, 'new@person.example', 'a new password');

      const again = await anonymous('POST', '/api/invites/accept', { token, password: 'a new password' });
      expect(again.statusCode).toBe(404);
      expect((await team.as.owner('GET', '/api/invites')).json().invites).toEqual([]);
    });

    it('an existing person joins with their password, then belongs to two organizations and switches', async () => {
      const home = await makeTeam(h, 'home');
      const other = await makeTeam(h, 'other');
      await other.as.owner('POST', '/api/invites', { email: home.emails.member, role: 'viewer' });
      const token = tokenOf(await mailedLink(smtp, home.emails.member));
      const anonymous = asCookie(h, '');
      // Inspect says nothing of whether the email has an account (issue #30).
      expect((await anonymous('POST', '/api/invites/inspect', { token })).json()).not.toHaveProperty(
        'existingUser',
      );
      // No password is checked here, right or wrong: an existing account joins from its own session.
      for (const password of ['not the password', PASSWORD]) {
        const refused = await anonymous('POST', '/api/invites/accept', { token, password });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toMatchObject({
          error: 'unauthenticated',
          message: expect.stringMatching(/Log in as/),
        });
        expect(refused.headers['set-cookie']).toBeUndefined();
      }
      // Logged in as that person already: no password needed.
      const joined = await home.as.member('POST', '/api/invites/accept', { token });
      expect(joined.statusCode).toBe(200);
      expect(joined.json().org.id).toBe(other.orgId);
      expect(joined.json().orgs.map((org: { id: string; role: string }) => [org.id, org.role])).toEqual([
        [home.orgId, 'member'],
        [other.orgId, 'viewer'],
      ]);

      // The old session still works in its organization, and switches.
      const me = home.as.member;
      await me('POST', '/api/links', { url: 'https://example.com/home' });
      expect((await me('GET', '/api/session')).json().org.id).toBe(home.orgId);
      const switched = await me('POST', '/api/session/org', { orgId: other.orgId });
      expect(switched.json()).toMatchObject({ org: { id: other.orgId }, role: 'viewer' });
      expect((await me('GET', '/api/links')).json().links).toEqual([]);
      expect((await me('POST', '/api/links', { url: 'https://example.com/x' })).json().error).toBe(
        'forbidden_role',
      );
      const stranger = await makeTeam(h, 'stranger');
      expect((await me('POST', '/api/session/org', { orgId: stranger.orgId })).statusCode).toBe(404);
    });

    it('invites: admins may not invite owners, nobody invites a member twice, and a revoked invite is dead', async () => {
      const team = await makeTeam(h, 'rules');
      expect(
        (await team.as.admin('POST', '/api/invites', { email: 'o@x.example', role: 'owner' })).json().error,
      ).toBe('forbidden_role');
      expect(
        (await team.as.owner('POST', '/api/invites', { email: 'o@x.example', role: 'owner' })).statusCode,
      ).toBe(201);
      const twice = await team.as.owner('POST', '/api/invites', { email: team.emails.viewer, role: 'admin' });
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error).toBe('already_member');
      expect(
        (await team.as.member('POST', '/api/invites', { email: 'z@x.example', role: 'viewer' })).json().error,
      ).toBe('forbidden_role');
      const bad = await team.as.owner('POST', '/api/invites', { email: 'not an email', role: 'chief' });
      expect(bad.statusCode).toBe(400);

      const { id } = (
        await team.as.admin('POST', '/api/invites', { email: 'late@x.example', role: 'viewer' })
      ).json();
      const acceptUrl = await mailedLink(smtp, 'late@x.example');
      expect((await team.as.admin('DELETE', `/api/invites/${id}`)).json()).toEqual({ deleted: true });
      const dead = await asCookie(h, '')('POST', '/api/invites/inspect', { token: tokenOf(acceptUrl) });
      expect(dead.statusCode).toBe(404);
      expect((await team.as.admin('DELETE', `/api/invites/${id}`)).statusCode).toBe(404);
    });

    it('an invite expires after 7 days', async () => {
      const team = await makeTeam(h, 'expiry');
      const { id } = (
        await team.as.owner('POST', '/api/invites', { email: 'slow@x.example', role: 'viewer' })
      ).json();
      const acceptUrl = await mailedLink(smtp, 'slow@x.example');
      await h.testStore.store.db
        .updateTable('invites')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', id)
        .execute();
      const late = await asCookie(h, '')('POST', '/api/invites/accept', {
        token: tokenOf(acceptUrl),
        password: PASSWORD,
      });
      expect(late.statusCode).toBe(404);
      expect(late.json().message).toMatch(/expired/);
    });
  });
}
