import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCookie, invite, login, makeTeam, PASSWORD } from '../accounts/teams.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/**
 * Issue #20: an invite token is single-use. Two tabs (or a double click) accepting the same token at once,
 * or an admin revoking it while it is accepted, must leave exactly one membership and answer the loser
 * with the spec's error body, never a 500.
 */

const ATTEMPTS = 5;

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`concurrent invite accepts on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => {
      await h?.close();
    });

    const membershipsOf = async (email: string) =>
      h.testStore.store.db
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select(['memberships.org_id as orgId', 'memberships.role as role'])
        .where('users.email', '=', email)
        .execute();

    /** Exactly one winner; every loser answers 404 with the error body naming the used invite. */
    function expectOneWinner(responses: { statusCode: number; json: () => unknown }[]): void {
      const statuses = responses.map((r) => r.statusCode);
      expect(
        statuses.filter((s) => s >= 500),
        String(statuses),
      ).toEqual([]);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      for (const loser of responses.filter((r) => r.statusCode !== 200)) {
        expect(loser.statusCode).toBe(404);
        expect(loser.json()).toEqual({
          error: 'not_found',
          message: 'This invite is unknown, used or expired: ask for a new one.',
        });
      }
    }

    it('a new person accepting the same token several times at once joins once', async () => {
      const team = await makeTeam(h, `race-new-${kind.name}`);
      const token = await invite(h, team.as.owner, 'twice@race.example', 'member');
      const anonymous = asCookie(h, '');
      const responses = await Promise.all(
        Array.from({ length: ATTEMPTS }, () =>
          anonymous('POST', '/api/invites/accept', { token, password: 'a new password' }),
        ),
      );
      expectOneWinner(responses);
      expect(await membershipsOf('twice@race.example')).toEqual([{ orgId: team.orgId, role: 'member' }]);
    });

    it('an existing person accepting the same token several times at once joins once', async () => {
      const home = await makeTeam(h, `race-home-${kind.name}`);
      const other = await makeTeam(h, `race-other-${kind.name}`);
      const token = await invite(h, other.as.owner, home.emails.viewer, 'admin');
      // Two tabs of the person's own session (an existing account joins only from it).
      const responses = await Promise.all(
        Array.from({ length: ATTEMPTS }, () => home.as.viewer('POST', '/api/invites/accept', { token })),
      );
      expectOneWinner(responses);
      const rows = await membershipsOf(home.emails.viewer);
      expect(rows.filter((row) => row.orgId === other.orgId)).toEqual([
        { orgId: other.orgId, role: 'admin' },
      ]);
      expect(rows).toHaveLength(2);
    });

    it('accepting while an admin revokes: one of them wins, nobody sees a 500', async () => {
      const team = await makeTeam(h, `race-revoke-${kind.name}`);
      for (let round = 0; round < 4; round++) {
        const email = `revoked${round}@race.example`;
        const token = await invite(h, team.as.admin, email, 'viewer');
        const { id } = (await team.as.admin('GET', '/api/invites')).json().invites[0];
        const [accepted, revoked] = await Promise.all([
          asCookie(h, '')('POST', '/api/invites/accept', { token, password: PASSWORD }),
          team.as.admin('DELETE', `/api/invites/${id}`),
        ]);
        expect([accepted.statusCode, revoked.statusCode].sort()).toEqual([200, 404]);
        const joined = await membershipsOf(email);
        if (accepted.statusCode === 200) {
          expect(revoked.json().error).toBe('not_found');
          expect(joined).toEqual([{ orgId: team.orgId, role: 'viewer' }]);
        } else {
          expect(accepted.json().error).toBe('not_found');
          expect(revoked.json()).toEqual({ deleted: true });
          expect(joined).toEqual([]);
          expect(
            await h.testStore.store.db.selectFrom('users').select('id').where('email', '=', email).execute(),
          ).toEqual([]);
        }
      }
    });

    it('one new person accepting invites from two organizations at once gets one account; the second joins after logging in', async () => {
      const first = await makeTeam(h, `race-first-${kind.name}`);
      const second = await makeTeam(h, `race-second-${kind.name}`);
      const email = 'both@race.example';
      const tokens = [
        await invite(h, first.as.owner, email, 'member'),
        await invite(h, second.as.owner, email, 'member'),
      ];
      const responses = await Promise.all(
        tokens.map((token) =>
          asCookie(h, '')('POST', '/api/invites/accept', { token, password: 'one password for both' }),
        ),
      );
      // One makes the account; the other finds it made and, checking no password, asks to log in first.
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.sort()).toEqual([200, 401]);
      const loser = responses.findIndex((r) => r.statusCode === 401);
      expect(responses[loser]?.json().error).toBe('unauthenticated');
      const cookie = await login(h, email, 'one password for both');
      const late = await asCookie(h, cookie)('POST', '/api/invites/accept', { token: tokens[loser] });
      expect(late.statusCode, late.body).toBe(200);
      const users = await h.testStore.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .execute();
      expect(users).toHaveLength(1);
      const joined = (await membershipsOf(email)).map((row) => row.orgId).sort();
      expect(joined).toEqual([first.orgId, second.orgId].sort());
      // The same password opens the one account.
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email, password: 'one password for both' },
          })
        ).statusCode,
      ).toBe(200);
    });
  });
}
