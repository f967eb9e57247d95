import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/secrets.js';
import { asCookie, login, PASSWORD } from '../accounts/teams.js';
import { storeKinds } from '../helpers/stores.js';
import { DOMAIN, type SsoWorld, startSsoWorld } from './sso-harness.js';

/**
 * Issue #34: the owner's SSO settings (secret encrypted at rest, never returned; owners only; one
 * organization per domain) and require-SSO, which refuses members' password log-in but not owners'.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`SSO settings on ${kind.name}`, () => {
    let world: SsoWorld;
    beforeAll(async () => {
      world = await startSsoWorld(kind);
    });
    afterAll(async () => {
      await world?.close();
    });

    it('stores the client secret encrypted and never returns it', async () => {
      const owner = asCookie(world.h, world.ownerCookie);
      const read = await owner('GET', '/api/org/sso');
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({
        issuer: world.provider.issuer,
        hasSecret: true,
        defaultRole: 'viewer',
        requireSso: false,
        redirectUri: 'https://lnk.example/api/sso/callback',
      });
      expect(read.body).not.toContain(world.provider.clientSecret);
      const row = await world.h.testStore.store.db
        .selectFrom('sso_configs')
        .selectAll()
        .where('org_id', '=', world.orgId)
        .executeTakeFirstOrThrow();
      expect(row.client_secret_box).not.toContain(world.provider.clientSecret);
      expect(row.client_secret_box).toMatch(/^k[0-9a-f]{8}\./);
      // The audit row says the secret changed, never what it is.
      const audit = await world.h.testStore.store.db
        .selectFrom('audit_log')
        .select('changes')
        .where('action', '=', 'sso.configured')
        .execute();
      expect(audit.length).toBeGreaterThan(0);
      expect(JSON.stringify(audit)).not.toContain(world.provider.clientSecret);
    });

    it('is an owner’s business alone, and one domain names one organization', async () => {
      const member = `admin@${DOMAIN}`;
      await world.h.accounts.createUser(world.orgId, member, await hashPassword(PASSWORD), 'admin');
      const admin = asCookie(world.h, await login(world.h, member));
      expect((await admin('GET', '/api/org/sso')).statusCode).toBe(403);
      expect((await admin('DELETE', '/api/org/sso')).statusCode).toBe(403);

      const other = await world.h.session({ email: 'other-owner@example.com', orgName: 'Other' });
      const taken = await asCookie(world.h, other.cookie)('PUT', '/api/org/sso', {
        issuer: world.provider.issuer,
        clientId: world.provider.clientId,
        clientSecret: 'whatever-secret',
        allowedDomain: DOMAIN.toUpperCase(),
        displayName: 'Mine',
      });
      expect(taken.statusCode).toBe(409);
      expect(taken.json()).toMatchObject({ error: 'sso_domain_taken' });
      const nowhere = await asCookie(world.h, other.cookie)('PUT', '/api/org/sso', {
        issuer: 'http://127.0.0.1:9/',
        clientId: 'x',
        clientSecret: 'y',
        allowedDomain: 'other.test',
        displayName: 'Mine',
      });
      expect(nowhere.statusCode).toBe(400);
      expect(nowhere.json()).toMatchObject({ error: 'invalid_body' });
      const noSecret = await asCookie(world.h, other.cookie)('PUT', '/api/org/sso', {
        issuer: world.provider.issuer,
        clientId: 'x',
        allowedDomain: 'other.test',
        displayName: 'Mine',
      });
      expect(noSecret.json()).toMatchObject({ error: 'invalid_body' });
    });

    it('with requireSso, refuses members’ password log-in but not owners’; off again, lets them in', async () => {
      const owner = asCookie(world.h, world.ownerCookie);
      const email = `member@${DOMAIN}`;
      await world.h.accounts.createUser(world.orgId, email, await hashPassword(PASSWORD), 'member');
      const settings = {
        issuer: world.provider.issuer,
        clientId: world.provider.clientId,
        allowedDomain: DOMAIN,
        displayName: 'Acme ID',
        requireSso: true,
      };
      const on = await owner('PUT', '/api/org/sso', settings);
      expect(on.statusCode, on.body).toBe(200);
      expect(on.json()).toMatchObject({ requireSso: true, hasSecret: true });

      const refused = await world.h.api(null, {
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: PASSWORD },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'sso_required' });
      expect(refused.json().message).toMatch(/single sign-on/);
      // A wrong password still says only that.
      const wrong = await world.h.api(null, {
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: 'not the password' },
      });
      expect(wrong.statusCode).toBe(401);
      const ownerLogin = await world.h.api(null, {
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: world.ownerEmail, password: 'password1' },
      });
      expect(ownerLogin.statusCode).toBe(200);

      expect((await owner('PUT', '/api/org/sso', { ...settings, requireSso: false })).statusCode).toBe(200);
      expect(await login(world.h, email)).toMatch(/^lh_session=/);
    });
  });
}
