import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/tenancy/permissions.js';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { nthMailTo, signupTokenIn } from '../helpers/mailbox.js';
import { storeKinds } from '../helpers/stores.js';
import { makeTeam, type Team } from './teams.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`named and scoped API keys on ${kind.name}`, () => {
    let h: HostedHarness;
    let team: Team;
    let smtp: SmtpSink;
    beforeAll(async () => {
      smtp = await startSmtp();
      h = await startHosted(kind, { SIGNUP_TIER: 'legend', SMTP_URL: smtp.url });
      team = await makeTeam(h, 'keys');
    });
    afterAll(async () => {
      await h?.close();
      await smtp?.close();
    });

    it('a key has a name and scopes; the keys page shows name, scopes, created and last used', async () => {
      const created = await team.as.admin('POST', '/api/keys', {
        name: 'Reporting',
        scopes: ['analytics:read', 'links:read'],
      });
      expect(created.statusCode).toBe(201);
      const key = created.json();
      expect(key).toMatchObject({
        name: 'Reporting',
        scopes: ['analytics:read', 'links:read'],
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(key.apiKey).toMatch(/^svc_/);
      expect(key.prefix).toBe(key.apiKey.slice(0, 8));

      expect((await h.v1(key.apiKey, { method: 'GET', url: '/v1/links' })).statusCode).toBe(200);
      const refused = await h.v1(key.apiKey, { method: 'GET', url: '/v1/audience' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('forbidden_scope');

      const listed = (await team.as.viewer('GET', '/api/keys')).json();
      expect(listed.error).toBe('forbidden_role');
      // Last use is written off the request path (at most once a minute per key): wait for it to land.
      const listKeys = async () => (await team.as.owner('GET', '/api/keys')).json().keys;
      await expect
        .poll(async () => (await listKeys()).find((k: { id: string }) => k.id === key.id)?.lastUsedAt, {
          timeout: 10_000,
        })
        .toEqual(expect.any(String));
      const keys = await listKeys();
      const row = keys.find((k: { id: string }) => k.id === key.id);
      expect(row).toEqual({
        id: key.id,
        name: 'Reporting',
        prefix: key.prefix,
        scopes: ['analytics:read', 'links:read'],
        createdAt: key.createdAt,
        lastUsedAt: expect.any(String),
        revokedAt: null,
        // Who made it (issue #30): their removal revokes it.
        createdBy: { userId: team.userIds.admin, email: team.emails.admin },
        organizationKey: false,
      });
      expect(Date.now() - Date.parse(row.lastUsedAt)).toBeLessThan(60_000);
      expect(JSON.stringify(keys)).not.toContain(key.apiKey);
    });

    it('all alone stands for everything; an unknown scope or a missing name is a 400 naming the field', async () => {
      const all = await team.as.owner('POST', '/api/keys', {
        name: 'Everything',
        scopes: ['links:read', 'all'],
      });
      expect(all.json().scopes).toEqual(['all']);
      expect((await team.as.owner('POST', '/api/keys', { name: 'Default' })).json().scopes).toEqual(['all']);
      const unknown = await team.as.owner('POST', '/api/keys', { name: 'X', scopes: ['links:delete'] });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().message).toMatch(/^scopes: .*links:read, links:write/);
      const nameless = await team.as.owner('POST', '/api/keys', { scopes: ['all'] });
      expect(nameless.statusCode).toBe(400);
      expect(nameless.json().message).toBe('name is required');
      expect((await team.as.member('POST', '/api/keys', { name: 'Mine' })).json().error).toBe(
        'forbidden_role',
      );
    });

    it('scopes: [] is a 400 naming scopes, on /v1/keys and /api/keys; leaving scopes out still means all', async () => {
      // An empty list used to be stored as `all` (issue #30): a key meant to do nothing could do everything.
      const expected = {
        error: 'invalid_body',
        message: 'scopes: name at least one scope, or leave scopes out for a key with all',
      };
      const dashboard = await team.as.owner('POST', '/api/keys', { name: 'Nothing', scopes: [] });
      expect(dashboard.statusCode).toBe(400);
      expect(dashboard.json()).toMatchObject(expected);
      // Minted by the service: the dashboard's 10 an hour are for the other tests here.
      const minter = (await h.accounts.mintApiKey(team.orgId, { name: 'Minter', scopes: ['all'] })).apiKey;
      const v1 = await h.v1(minter, {
        method: 'POST',
        url: '/v1/keys',
        payload: { name: 'Nothing', scopes: [] },
      });
      expect(v1.statusCode).toBe(400);
      expect(v1.json()).toMatchObject(expected);
      const omitted = await h.v1(minter, {
        method: 'POST',
        url: '/v1/keys',
        payload: { name: 'Default' },
      });
      expect(omitted.statusCode).toBe(201);
      expect(omitted.json().scopes).toEqual(['all']);
      const names = (await team.as.owner('GET', '/api/keys'))
        .json()
        .keys.map((k: { name: string }) => k.name);
      expect(names).not.toContain('Nothing');
      // The service refuses it too, for callers that skip the route's schema.
      await expect(h.accounts.mintApiKey(team.orgId, { name: 'Nothing', scopes: [] })).rejects.toMatchObject({
        code: 'invalid_body',
      });
    });

    it('the links list stats (clicks, app-open rates) need analytics:read, not links:read', async () => {
      const link = (await team.as.owner('POST', '/api/links', { url: 'https://example.com/stats' })).json();
      const keyWith = async (scopes: Scope[]) =>
        (await h.accounts.mintApiKey(team.orgId, { name: scopes.join(' '), scopes })).apiKey;
      const url = `/v1/links/stats?ids=${link.id}`;
      const refusedScopes: Scope[][] = [['links:read'], ['links:write'], ['links:read', 'audience:read']];
      for (const scopes of refusedScopes) {
        const refused = await h.v1(await keyWith(scopes), { method: 'GET', url });
        expect(refused.statusCode, scopes.join()).toBe(403);
        expect(refused.json()).toEqual({
          error: 'forbidden_scope',
          message: `This API key's scopes (${scopes.join(', ')}) do not allow this; it needs analytics:read or all`,
        });
      }
      for (const scopes of [['analytics:read'], ['all']] satisfies Scope[][]) {
        const allowed = await h.v1(await keyWith(scopes), { method: 'GET', url });
        expect(allowed.statusCode, scopes.join()).toBe(200);
      }
      // A viewer still sees the links list with its numbers in the dashboard.
      expect((await team.as.viewer('GET', `/api/links/stats?ids=${link.id}`)).statusCode).toBe(200);
    });

    it('a new sign-up starts on SIGNUP_TIER', async () => {
      const body = { email: 'fresh@keys.example', password: 'long enough', orgName: 'Fresh' };
      const asked = await h.app.inject({ method: 'POST', url: '/api/auth/signup', payload: body });
      expect(asked.statusCode).toBe(202);
      const token = signupTokenIn(await nthMailTo(smtp, 'fresh@keys.example'));
      const confirmed = await h.app.inject({
        method: 'POST',
        url: '/api/auth/signup/confirm',
        payload: { token },
      });
      expect(confirmed.json()).toMatchObject({ org: { name: 'Fresh', tier: 'legend' }, role: 'owner' });
    });
  });
}
