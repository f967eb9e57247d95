import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/stores.js';
import { type SocialHarness, startSocial } from './harness.js';
import { commentTrigger, connect, createLink, createRule, stateOf } from './helpers.js';

/** Every status of hosted-service.md 4.5 for the dashboard routes. */
describe.each(storeKinds)('social dashboard routes on $name', (kind) => {
  let h: SocialHarness;
  beforeAll(async () => {
    if (!kind.skipReason) h = await startSocial(kind);
  });
  afterAll(async () => h?.close());
  const run = it.skipIf(kind.skipReason !== null);

  run('401 on every dashboard route without a session', async () => {
    for (const [method, url] of [
      ['GET', '/api/social'],
      ['GET', '/api/social/meta'],
      ['POST', '/api/social/connect'],
      ['DELETE', '/api/social/accounts/x'],
      ['POST', '/api/social/automations'],
      ['GET', '/api/social/automations'],
      ['PATCH', '/api/social/automations/x'],
      ['DELETE', '/api/social/automations/x'],
      ['GET', '/api/social/automations/x/stats'],
      ['GET', '/api/social/automations/x/events'],
    ] as const) {
      const response = await h.as(null, {
        method,
        url,
        ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  run('meta: configured with an authUrl for legend, null for lower plans', async () => {
    const legend = await h.org('legend');
    const meta = (await h.as(legend.orgId, { method: 'GET', url: '/api/social/meta' })).json();
    expect(meta).toMatchObject({ appConfigured: true, appMode: 'development' });
    const authUrl = new URL(meta.authUrl);
    expect(authUrl.pathname).toBe('/oauth/authorize');
    expect(authUrl.searchParams.get('client_id')).toBe(h.fake.appId);
    expect(authUrl.searchParams.get('response_type')).toBe('code');
    expect(authUrl.searchParams.get('scope')).toContain('instagram_business_basic');
    const hero = await h.org('hero');
    expect((await h.as(hero.orgId, { method: 'GET', url: '/api/social/meta' })).json().authUrl).toBeNull();
  });

  run(
    'connect: 400 missing code, 403 forged state and lower plan, 502 refusal; nothing written',
    async () => {
      const { orgId } = await h.org('legend');
      const state = await stateOf(h, orgId);
      const missing = await h.as(orgId, { method: 'POST', url: '/api/social/connect', payload: { state } });
      expect(missing.statusCode).toBe(400);
      const other = await h.org('legend');
      const forged = await h.as(orgId, {
        method: 'POST',
        url: '/api/social/connect',
        payload: { code: 'c', state: await stateOf(h, other.orgId) },
      });
      expect(forged.statusCode).toBe(403);
      const hero = await h.org('hero');
      const notEntitled = await h.as(hero.orgId, {
        method: 'POST',
        url: '/api/social/connect',
        payload: { code: 'c', state },
      });
      expect(notEntitled.json()).toMatchObject({ error: 'dm_automations' });
      expect(notEntitled.statusCode).toBe(403);
      h.fake.refuseCode(true);
      const refused = await connect(h, orgId);
      h.fake.refuseCode(false);
      expect(refused.response.statusCode).toBe(502);
      expect(refused.response.json()).toMatchObject({
        error: 'provider_error',
        providerStatus: 400,
        providerCode: 400,
      });
      expect(refused.response.json().message).not.toMatch(/Matching code/);
      // A failure late in the chain (the subscription call) still writes nothing.
      h.fake.failNext('subscribe', { status: 500, code: 1, message: 'boom' });
      expect((await connect(h, orgId)).response.statusCode).toBe(502);
      expect((await h.as(orgId, { method: 'GET', url: '/api/social' })).json()).toEqual({ accounts: [] });
    },
  );

  run('connect copes with the documented data[] wrapper and string ids', async () => {
    const { orgId } = await h.org('legend');
    h.fake.options = { wrapData: true, numericUserId: false };
    const { response, userId } = await connect(h, orgId);
    h.fake.options = { wrapData: false, numericUserId: true };
    expect(response.statusCode).toBe(201);
    expect(response.json().providerUserId).toBe(userId);
  });

  run('a revoked row of the same organization is revived with its automations and history', async () => {
    const { orgId, apiKey } = await h.org('legend');
    const first = await connect(h, orgId);
    const accountId = first.response.json().id;
    const link = await createLink(h, apiKey);
    const rule = (
      await createRule(h, orgId, { accountId, linkId: link.id, dmText: 'Hi', trigger: commentTrigger([]) })
    ).json();
    const { payload } = h.fake.comment({ accountUserId: first.userId, fromId: '77', text: 'x' });
    await h.fake.deliver(h.webhookUrl, payload);
    await h.intake.drain();
    expect(
      (await h.as(orgId, { method: 'DELETE', url: `/api/social/accounts/${accountId}` })).statusCode,
    ).toBe(200);
    const listed = (await h.as(orgId, { method: 'GET', url: '/api/social' })).json().accounts;
    expect(listed[0]).toMatchObject({ id: accountId, status: 'revoked' });
    const again = await connect(h, orgId, first.userId);
    expect(again.response.statusCode).toBe(201);
    expect(again.response.json()).toMatchObject({ id: accountId, status: 'active' });
    const events = await h.as(orgId, { method: 'GET', url: `/api/social/automations/${rule.id}/events` });
    expect(events.json().events).toHaveLength(1);
  });

  run('disconnect: 404 for an unknown or foreign account; the token is emptied', async () => {
    const a = await h.org('legend');
    const b = await h.org('sidekick');
    const { response } = await connect(h, a.orgId);
    const id = response.json().id;
    expect((await h.as(b.orgId, { method: 'DELETE', url: `/api/social/accounts/${id}` })).statusCode).toBe(
      404,
    );
    expect((await h.as(a.orgId, { method: 'DELETE', url: '/api/social/accounts/nope' })).statusCode).toBe(
      404,
    );
    expect((await h.as(a.orgId, { method: 'DELETE', url: `/api/social/accounts/${id}` })).json()).toEqual({
      deleted: true,
    });
    const row = await h.db
      .selectFrom('social_accounts')
      .select(['token_ciphertext'])
      .where('id', '=', id)
      .executeTakeFirst();
    expect(row?.token_ciphertext).toBe('');
  });

  run('automation create: 201 and every 400 and 403', async () => {
    const { orgId, apiKey } = await h.org('legend');
    const accountId = (await connect(h, orgId)).response.json().id;
    const link = await createLink(h, apiKey);
    const base = {
      accountId,
      linkId: link.id,
      dmText: 'Here you go',
      trigger: commentTrigger(['  Link ', 'link', '']),
    };
    const ok = await createRule(h, orgId, base);
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({
      enabled: true,
      trigger: { type: 'comment', match: { mode: 'any', keywords: ['Link'] }, mediaId: null },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ trigger: { type: 'story', match: { mode: 'any', keywords: [] } } }, 'bad_trigger'],
      [{ trigger: { type: 'comment', match: { mode: 'regex', keywords: [] } } }, 'bad_trigger'],
      [
        {
          trigger: {
            type: 'comment',
            match: { mode: 'any', keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) },
          },
        },
        'bad_trigger',
      ],
      [{ trigger: { type: 'comment', match: { mode: 'any', keywords: ['x'.repeat(65)] } } }, 'bad_trigger'],
      [{ dmText: '   ' }, 'missing_dm_text'],
      [{ dmText: undefined }, 'missing_dm_text'],
      [{ dmText: 'see bit.ly/abc' }, 'raw_link_in_dm_text'],
      [{ accountId: 'nope' }, 'unknown_account'],
      [{ linkId: '00000000-0000-4000-8000-000000000000' }, 'unknown_link'],
    ];
    for (const [override, code] of cases) {
      const response = await createRule(h, orgId, { ...base, ...override });
      expect(response.statusCode, code).toBe(400);
      expect(response.json().error).toBe(code);
    }
    expect((await createRule(h, orgId, { ...base, dmText: 'go to example.com now' })).json()).toMatchObject({
      error: 'raw_link_in_dm_text',
      offending: 'example.com',
    });
    for (let i = 1; i < 25; i += 1) expect((await createRule(h, orgId, base)).statusCode).toBe(201);
    const tooMany = await createRule(h, orgId, base);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toBe('too_many_automations');
    const hero = await h.org('hero');
    expect((await createRule(h, hero.orgId, base)).json()).toMatchObject({ error: 'dm_automations' });
  });

  run('list, edit, pause, delete, stats, events: statuses and tier rules', async () => {
    const { orgId, apiKey } = await h.org('legend');
    const accountId = (await connect(h, orgId)).response.json().id;
    const link = await createLink(h, apiKey);
    const rule = (
      await createRule(h, orgId, { accountId, linkId: link.id, dmText: 'Hi', trigger: commentTrigger() })
    ).json();
    const list = await h.as(orgId, { method: 'GET', url: '/api/social/automations' });
    expect(list.statusCode).toBe(200);
    expect(list.json().automations.map((r: { id: string }) => r.id)).toEqual([rule.id]);
    const url = `/api/social/automations/${rule.id}`;
    const edited = await h.as(orgId, { method: 'PATCH', url, payload: { dmText: 'Hello there' } });
    expect(edited.json()).toMatchObject({ dmText: 'Hello there' });
    expect(
      (await h.as(orgId, { method: 'PATCH', url, payload: { dmText: 'www.evil.example' } })).statusCode,
    ).toBe(400);
    expect(
      (await h.as(orgId, { method: 'PATCH', url, payload: { trigger: { type: 'x' } } })).json().error,
    ).toBe('bad_trigger');
    expect(
      (
        await h.as(orgId, {
          method: 'PATCH',
          url: '/api/social/automations/nope',
          payload: { enabled: false },
        })
      ).statusCode,
    ).toBe(404);

    await h.setTier(orgId, 'sidekick');
    const downgraded = (options: Parameters<SocialHarness['as']>[1]) => h.as(orgId, options);
    expect((await downgraded({ method: 'PATCH', url, payload: { enabled: true } })).json().error).toBe(
      'dm_automations',
    );
    expect(
      (await downgraded({ method: 'PATCH', url, payload: { enabled: false, dmText: 'x' } })).statusCode,
    ).toBe(403);
    expect((await downgraded({ method: 'PATCH', url, payload: { enabled: false } })).json().enabled).toBe(
      false,
    );
    expect((await downgraded({ method: 'GET', url: '/api/social/automations' })).statusCode).toBe(200);
    expect((await downgraded({ method: 'GET', url: `${url}/stats` })).statusCode).toBe(200);
    expect((await downgraded({ method: 'GET', url: `${url}/events` })).json()).toEqual({ events: [] });
    expect((await downgraded({ method: 'GET', url: '/api/social/automations/nope/stats' })).statusCode).toBe(
      404,
    );
    expect((await downgraded({ method: 'DELETE', url })).json()).toEqual({ deleted: true });
    expect((await downgraded({ method: 'DELETE', url })).statusCode).toBe(404);
  });
});
