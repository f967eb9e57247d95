import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCookie } from '../accounts/teams.js';
import { storeKinds } from '../helpers/stores.js';
import {
  callback,
  DOMAIN,
  type SsoWorld,
  sessionCookieOf,
  signIn,
  startSignIn,
  startSsoWorld,
} from './sso-harness.js';

/**
 * Issue #34: OpenID Connect sign-in against a real provider (oidc-provider on loopback), at the HTTP level.
 * The happy path joins with the owner's default role; every refusal answers the spec's error body.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`SSO sign-in on ${kind.name}`, () => {
    let world: SsoWorld;
    beforeAll(async () => {
      world = await startSsoWorld(kind);
    });
    afterAll(async () => {
      await world?.close();
    });

    const errorOf = (response: { statusCode: number; json: () => unknown }) => ({
      status: response.statusCode,
      ...(response.json() as { error: string; reason?: string; message: string }),
    });

    it('a first sign-in of a verified email at the domain joins as viewer, linked by (issuer, sub)', async () => {
      world.provider.people.set('alice', { email: `Alice@${DOMAIN}` });
      const back = await signIn(world, 'alice');
      expect(back.statusCode, back.body).toBe(303);
      expect(back.headers.location).toBe('/#/');
      const session = await world.h.api(sessionCookieOf(back), { method: 'GET', url: '/api/session' });
      expect(session.statusCode).toBe(200);
      expect(session.json()).toMatchObject({
        user: { email: `alice@${DOMAIN}` },
        org: { id: world.orgId },
        role: 'viewer',
      });
      const { db } = world.h.testStore.store;
      const identity = await db
        .selectFrom('sso_identities')
        .selectAll()
        .where('subject', '=', 'alice')
        .execute();
      expect(identity).toEqual([
        expect.objectContaining({ issuer: world.provider.issuer, org_id: world.orgId }),
      ]);
      const audit = await db
        .selectFrom('audit_log')
        .select('action')
        .where('org_id', '=', world.orgId)
        .where('action', '=', 'member.joined_sso')
        .execute();
      expect(audit).toHaveLength(1);

      // A new email at the provider is still the same person here: no second account.
      world.provider.people.set('alice', { email: `alice.renamed@${DOMAIN}` });
      const again = await signIn(world, 'alice');
      expect(again.statusCode, again.body).toBe(303);
      const users = await db.selectFrom('users').select('id').where('email', 'like', 'alice%').execute();
      expect(users).toHaveLength(1);
    });

    it('refuses a callback whose state is not the one this browser started with', async () => {
      const first = await startSignIn(world);
      const second = await startSignIn(world);
      world.provider.people.set('bob', { email: `bob@${DOMAIN}` });
      const back = await world.provider.authorize(second.location, 'bob');
      const crossed = await callback(world, back, first.stateCookie);
      expect(errorOf(crossed)).toMatchObject({ status: 400, error: 'sso_failed', reason: 'state' });
      const noCookie = await callback(world, back, '');
      expect(errorOf(noCookie)).toMatchObject({ status: 400, error: 'sso_failed', reason: 'state' });
      const tampered = new URL(back);
      tampered.searchParams.set('state', 'forged');
      const forged = await callback(world, tampered, 'lh_sso_state=forged');
      expect(errorOf(forged)).toMatchObject({ status: 400, error: 'sso_failed', reason: 'used' });
    });

    it('refuses a replayed code: the used state here, and the provider refuses the code under a new state', async () => {
      world.provider.people.set('carol', { email: `carol@${DOMAIN}` });
      const { location, stateCookie } = await startSignIn(world);
      const back = await world.provider.authorize(location, 'carol');
      expect((await callback(world, back, stateCookie)).statusCode).toBe(303);
      const replay = await callback(world, back, stateCookie);
      expect(errorOf(replay)).toMatchObject({ status: 400, error: 'sso_failed', reason: 'used' });

      const fresh = await startSignIn(world);
      const freshState = new URL(fresh.location).searchParams.get('state') as string;
      const oldCode = new URL(back);
      oldCode.searchParams.set('state', freshState);
      const reused = await callback(world, oldCode, fresh.stateCookie);
      expect(errorOf(reused)).toMatchObject({ status: 400, error: 'sso_failed', reason: 'provider' });
      expect(errorOf(reused).message).toContain('invalid_grant');
    });

    it('refuses an ID token issued for another audience', async () => {
      world.provider.people.set('dave', { email: `dave@${DOMAIN}` });
      world.provider.tamperIdToken = (claims) => ({ ...claims, aud: 'another-client' });
      try {
        const back = await signIn(world, 'dave');
        expect(errorOf(back)).toMatchObject({ status: 400, error: 'sso_failed', reason: 'provider' });
        expect(errorOf(back).message).toMatch(/aud/);
      } finally {
        world.provider.tamperIdToken = null;
      }
      const users = await world.h.testStore.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', `dave@${DOMAIN}`)
        .execute();
      expect(users).toEqual([]);
    });

    it('refuses an email the provider has not verified, and one outside the allowed domain', async () => {
      world.provider.people.set('erin', { email: `erin@${DOMAIN}`, emailVerified: false });
      expect(errorOf(await signIn(world, 'erin'))).toMatchObject({
        status: 403,
        error: 'sso_refused',
        reason: 'unverified',
      });
      world.provider.people.set('frank', { email: 'frank@elsewhere.test' });
      expect(errorOf(await signIn(world, 'frank'))).toMatchObject({
        status: 403,
        error: 'sso_refused',
        reason: 'domain',
      });
      // A look-alike domain is outside too.
      world.provider.people.set('gina', { email: `gina@evil${DOMAIN}` });
      expect(errorOf(await signIn(world, 'gina'))).toMatchObject({ status: 403, reason: 'domain' });
    });

    it('refuses a member an owner removed, and sends a browser back to the log-in page saying why', async () => {
      world.provider.people.set('henry', { email: `henry@${DOMAIN}` });
      const joined = await signIn(world, 'henry');
      expect(joined.statusCode).toBe(303);
      const owner = asCookie(world.h, world.ownerCookie);
      const members = (await owner('GET', '/api/members')).json() as {
        members: { userId: string; email: string }[];
      };
      const henry = members.members.find((m) => m.email === `henry@${DOMAIN}`);
      expect((await owner('DELETE', `/api/members/${henry?.userId}`)).statusCode).toBe(200);

      const again = await signIn(world, 'henry');
      expect(errorOf(again)).toMatchObject({ status: 403, error: 'sso_refused', reason: 'removed' });
      const browser = await signIn(world, 'henry', 'text/html,application/xhtml+xml');
      expect(browser.statusCode).toBe(303);
      expect(browser.headers.location).toBe('/#/login?sso_error=removed');
      const after = (await owner('GET', '/api/members')).json() as { members: { email: string }[] };
      expect(after.members.map((m) => m.email)).not.toContain(`henry@${DOMAIN}`);
    });

    it('finds the organization by the email domain for the log-in page', async () => {
      const found = await world.h.app.inject({ method: 'GET', url: `/api/sso/discover?email=zoe@${DOMAIN}` });
      expect(found.statusCode).toBe(200);
      expect(found.json()).toMatchObject({ orgId: world.orgId, displayName: 'Acme ID' });
      expect(found.json().startUrl).toMatch(/^\/api\/sso\/start\?org=/);
      const none = await world.h.app.inject({
        method: 'GET',
        url: '/api/sso/discover?email=zoe@nowhere.test',
      });
      expect(errorOf(none)).toMatchObject({ status: 404, error: 'not_found' });
      const bad = await world.h.app.inject({ method: 'GET', url: '/api/sso/discover?email=nope' });
      expect(bad.statusCode).toBe(400);
      const unknownOrg = await world.h.app.inject({
        method: 'GET',
        url: '/api/sso/start?org=00000000-0000-4000-8000-000000000000',
      });
      expect(errorOf(unknownOrg)).toMatchObject({ status: 404, error: 'not_found' });
    });
  });
}
