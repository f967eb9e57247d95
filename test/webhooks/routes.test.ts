import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetcher } from '../../src/net/guarded-fetch.js';
import type { Tier } from '../../src/tenancy/plans.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind, storeKinds } from '../helpers/stores.js';

/**
 * The routes as the hosted app mounts them (built through the composition root): under /v1, behind the
 * API-key hook, with the hosted error handler. Names resolve to a public address by hand, so no test
 * needs DNS.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`/v1/webhooks routes on ${kind.name}`, () => {
    let h: HostedHarness;
    /** A new organization at `tier`: its API key, which every call below speaks with. */
    const org = async (tier: Tier) => (await h.org(tier)).apiKey;
    const call = (apiKey: string, options: InjectOptions) => h.v1(apiKey, options);

    beforeAll(async () => {
      const fetcher = createGuardedFetcher({
        allowPrivate: false,
        lookup: async () => ['93.184.216.34'],
      });
      // The hosted service owns the fetcher from here: closing it closes the fetcher.
      h = await startHosted(kind, {}, { fetcher });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('create 201 with secret and note; list, patch and delete never show the secret', async () => {
      const apiKey = await org('legend');
      const created = await call(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: {
          url: 'https://hooks.example.com/x',
          events: ['link.created', 'link.created', 'app.opened'],
        },
      });
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(body).toEqual({
        id: expect.any(String),
        url: 'https://hooks.example.com/x',
        events: ['link.created', 'app.opened'],
        active: true,
        failCount: 0,
        lastDeliveredAt: null,
        createdAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_/),
        note: expect.any(String),
      });
      const listed = await call(apiKey, { method: 'GET', url: '/v1/webhooks' });
      expect(listed.statusCode).toBe(200);
      const { secret, note: _note, ...shown } = body;
      expect(listed.json()).toEqual({ webhooks: [shown] });
      expect(listed.body).not.toContain(secret);

      const paused = await call(apiKey, {
        method: 'PATCH',
        url: `/v1/webhooks/${body.id}`,
        payload: { active: false },
      });
      expect(paused.statusCode).toBe(200);
      expect(paused.json()).toEqual({ ...shown, active: false });
      expect(paused.body).not.toContain(secret);

      const deleted = await call(apiKey, { method: 'DELETE', url: `/v1/webhooks/${body.id}` });
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual({ deleted: true });
      expect((await call(apiKey, { method: 'GET', url: '/v1/webhooks' })).json()).toEqual({ webhooks: [] });
    });

    it.each([
      [{ url: 'https://hooks.example.com/x', events: [] }, ['events']],
      [{ url: 'https://hooks.example.com/x', events: ['link.deleted'] }, ['events', 0]],
      [{ url: 'not a url', events: ['link.created'] }, ['url']],
      [{ events: ['link.created'] }, ['url']],
      [{ url: 'https://hooks.example.com/x', events: ['link.created'], secret: 'mine' }, []],
    ])('400 invalid_body with issues for %j', async (payload, path) => {
      const apiKey = await org('legend');
      const response = await call(apiKey, { method: 'POST', url: '/v1/webhooks', payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_body', issues: expect.any(Array) });
      expect(response.json().issues[0].path).toEqual(path);
    });

    it('refused URLs are 400 invalid_webhook_url; the 6th webhook is 409; tiers below legend get 403', async () => {
      const apiKey = await org('legend');
      const refused = await call(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'https://127.0.0.1/hook', events: ['link.created'] },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        error: 'invalid_webhook_url',
        message: expect.stringMatching(/public/),
      });
      const plain = await call(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'http://hooks.example.com/hook', events: ['link.created'] },
      });
      expect(plain.json()).toMatchObject({
        error: 'invalid_webhook_url',
        message: expect.stringMatching(/https/),
      });

      for (let i = 0; i < 5; i++) {
        const ok = await call(apiKey, {
          method: 'POST',
          url: '/v1/webhooks',
          payload: { url: `https://hooks.example.com/${i}`, events: ['app.opened'] },
        });
        expect(ok.statusCode).toBe(201);
      }
      const sixth = await call(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'https://hooks.example.com/6', events: ['app.opened'] },
      });
      expect(sixth.statusCode).toBe(409);
      expect(sixth.json()).toMatchObject({ error: 'too_many_webhooks' });

      // The API is Legend's (a Hero key is 401 at /v1): a Hero organization reaches these routes from the
      // dashboard, the same plugin under /api, where the plan gate answers.
      const hero = await h.session({ email: `hero-${kind.name}@example.com`, orgName: 'Hero' });
      await h.accounts.setTier(hero.orgId, 'hero');
      const dashboard = (options: InjectOptions) =>
        h.app.inject({ ...options, headers: { cookie: hero.cookie, origin: BASE_URL } });
      const gated = await dashboard({
        method: 'POST',
        url: '/api/webhooks',
        payload: { url: 'https://hooks.example.com/x', events: ['app.opened'] },
      });
      expect(gated.statusCode).toBe(403);
      expect(gated.json()).toMatchObject({ error: 'webhooks' });
      expect((await dashboard({ method: 'GET', url: '/api/webhooks' })).statusCode).toBe(200);
    });

    it('another organization gets 404 on patch and delete; patch is strict', async () => {
      const owner = await org('legend');
      const intruder = await org('legend');
      const { id } = (
        await call(owner, {
          method: 'POST',
          url: '/v1/webhooks',
          payload: { url: 'https://hooks.example.com/mine', events: ['link.updated'] },
        })
      ).json();
      const patch = await call(intruder, {
        method: 'PATCH',
        url: `/v1/webhooks/${id}`,
        payload: { active: false },
      });
      expect(patch.statusCode).toBe(404);
      expect(patch.json()).toMatchObject({ error: 'not_found' });
      expect((await call(intruder, { method: 'DELETE', url: `/v1/webhooks/${id}` })).statusCode).toBe(404);
      const strict = await call(owner, {
        method: 'PATCH',
        url: `/v1/webhooks/${id}`,
        payload: { failCount: 0 },
      });
      expect(strict.statusCode).toBe(400);
      const events = await call(owner, {
        method: 'PATCH',
        url: `/v1/webhooks/${id}`,
        payload: { events: ['contact.captured'] },
      });
      expect(events.json()).toMatchObject({ id, events: ['contact.captured'], active: true });
    });
  });
}

describe('/v1/webhooks in the OpenAPI document', () => {
  it('documents the four operations with their schemas', async () => {
    const h = await startHosted(sqliteKind);
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/v1/webhooks']?.get?.operationId).toBe('listWebhooks');
    expect(doc.paths['/v1/webhooks']?.post?.operationId).toBe('createWebhook');
    expect(doc.paths['/v1/webhooks/{id}']?.patch?.operationId).toBe('updateWebhook');
    expect(doc.paths['/v1/webhooks/{id}']?.delete?.tags).toEqual(['webhooks']);
    expect(doc.components.schemas).toHaveProperty('Webhook');
    expect(doc.components.schemas).toHaveProperty('CreatedWebhook');
    expect(JSON.stringify(doc.paths['/v1/webhooks']?.post)).toContain('contact.captured');
    await h.close();
  });
});
