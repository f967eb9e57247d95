import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';

/**
 * The same flow through the composed hosted service (real session cookie, CSRF guard, OpenAPI). It skips
 * itself until the lead wires the social plugins into src/app.ts, then runs as is.
 */
describe('social routes wired into the hosted app', () => {
  let h: HostedHarness;
  let fake: FakeSocialProvider;
  beforeAll(async () => {
    fake = await new FakeSocialProvider().start();
    h = await startHosted(sqliteKind, {
      SOCIAL_APP_ID: fake.appId,
      SOCIAL_APP_SECRET: fake.appSecret,
      TOKEN_VAULT_KEY: randomBytes(32).toString('base64'),
      SOCIAL_VERIFY_TOKEN: 'vt',
      SOCIAL_AUTHORIZE_BASE: fake.origin,
      SOCIAL_OAUTH_BASE: fake.origin,
      SOCIAL_API_BASE: fake.origin,
      CRON_SECRET: 'cron',
    });
  });
  afterAll(async () => {
    await h.close();
    await fake.stop();
  });

  it('session, connect, rule, signed delivery, DM', async (ctx) => {
    if (!h.app.hasRoute({ method: 'GET', url: '/api/social/meta' })) ctx.skip();
    const { cookie } = await h.session({ email: 'a@b.co', orgName: 'A' });
    const session = (await h.app.inject({ method: 'GET', url: '/api/session', headers: { cookie } })).json();
    await h.accounts.setTier(session.org.id, 'legend');
    const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      h.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
    expect((await h.app.inject({ method: 'GET', url: '/api/social' })).statusCode).toBe(401);
    const meta = (await call('GET', '/api/social/meta')).json();
    expect(meta.appConfigured).toBe(true);
    const userId = '17841400000000077';
    fake.addAccount(userId, 'me');
    fake.consentUserId = userId;
    const back = new URL((await fetch(meta.authUrl, { redirect: 'manual' })).headers.get('location') ?? '');
    const connected = await call('POST', '/api/social/connect', {
      code: back.searchParams.get('code'),
      state: back.searchParams.get('state'),
    });
    expect(connected.statusCode).toBe(201);
    const link = (await call('POST', '/api/links', { url: 'https://example.com/x' })).json();
    const rule = await call('POST', '/api/social/automations', {
      accountId: connected.json().id,
      linkId: link.id,
      dmText: 'Here',
      trigger: { type: 'comment', match: { mode: 'any', keywords: [] }, mediaId: null },
    });
    expect(rule.statusCode).toBe(201);
    const { payload } = fake.comment({ accountUserId: userId, fromId: '5', text: 'hi' });
    const body = JSON.stringify(payload);
    const delivered = await h.app.inject({
      method: 'POST',
      url: '/api/public/social/webhook',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': fake.sign(body) },
      payload: body,
    });
    expect(delivered.statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.sent.map((m) => m.text)).toEqual([`Here ${link.shortUrl}`]);
    const hs = await h.app.inject({
      method: 'GET',
      url: '/api/public/social/webhook?hub.mode=subscribe&hub.challenge=99&hub.verify_token=vt',
    });
    expect(hs.body).toBe('99');
    expect(
      (
        await h.app.inject({
          method: 'POST',
          url: '/internal/social-refresh',
          headers: { 'x-cron-secret': 'cron' },
        })
      ).json(),
    ).toMatchObject({ scanned: 0 });
    const doc = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.body).toContain('/api/public/social/webhook');
  });
});
