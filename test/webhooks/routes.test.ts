import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedErrorHandler } from '../../src/http/errors.js';
import { createGuardedFetcher, type GuardedFetcher } from '../../src/net/guarded-fetch.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import type { Tier } from '../../src/tenancy/plans.js';
import { webhookRoutes } from '../../src/webhooks/routes.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { createWebhookService, type WebhookService } from '../../src/webhooks/service.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { MASTER_SECRET, webhookStore } from './setup.js';

/**
 * The routes as the lead mounts them: under /v1, behind a hook that sets request.org (here a stand-in
 * reading a test header instead of an API key), with the hosted error handler.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`/v1/webhooks routes on ${kind.name}`, () => {
    let testStore: TestStore;
    let fetcher: GuardedFetcher;
    let app: FastifyInstance;
    const orgs = new Map<string, OrgContext>();
    const org = async (tier: Tier) => {
      const ctx = await makeOrg(testStore.store, tier);
      orgs.set(ctx.orgId, ctx);
      return ctx.orgId;
    };
    const call = (orgId: string, options: InjectOptions) =>
      app.inject({ ...options, headers: { 'x-test-org': orgId, ...(options.headers ?? {}) } });

    beforeAll(async () => {
      testStore = await webhookStore(kind);
      fetcher = createGuardedFetcher({
        allowPrivate: false,
        lookup: async () => ['93.184.216.34'],
      });
      const webhooks = createWebhookService({
        store: testStore.store,
        fetcher,
        secretBox: createSecretBox({ current: MASTER_SECRET }),
        now: () => new Date(),
        uuid: randomUUID,
        allowPrivate: false,
      });
      app = Fastify();
      app.setValidatorCompiler(validatorCompiler);
      app.setSerializerCompiler(serializerCompiler);
      app.setErrorHandler(hostedErrorHandler);
      await app.register(
        async (v1) => {
          v1.decorateRequest('org', null);
          v1.addHook('onRequest', async (request) => {
            request.org = orgs.get(String(request.headers['x-test-org'])) ?? null;
          });
          await v1.register(webhookRoutes, { webhooks });
        },
        { prefix: '/v1' },
      );
      await app.ready();
    });
    afterAll(async () => {
      await app?.close();
      await fetcher?.close();
      await testStore?.dispose();
    });

    it('create 201 with secret and note; list, patch and delete never show the secret', async () => {
      const orgId = await org('legend');
      const created = await call(orgId, {
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
      const listed = await call(orgId, { method: 'GET', url: '/v1/webhooks' });
      expect(listed.statusCode).toBe(200);
      const { secret, note: _note, ...shown } = body;
      expect(listed.json()).toEqual({ webhooks: [shown] });
      expect(listed.body).not.toContain(secret);

      const paused = await call(orgId, {
        method: 'PATCH',
        url: `/v1/webhooks/${body.id}`,
        payload: { active: false },
      });
      expect(paused.statusCode).toBe(200);
      expect(paused.json()).toEqual({ ...shown, active: false });
      expect(paused.body).not.toContain(secret);

      const deleted = await call(orgId, { method: 'DELETE', url: `/v1/webhooks/${body.id}` });
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual({ deleted: true });
      expect((await call(orgId, { method: 'GET', url: '/v1/webhooks' })).json()).toEqual({ webhooks: [] });
    });

    it.each([
      [{ url: 'https://hooks.example.com/x', events: [] }, ['events']],
      [{ url: 'https://hooks.example.com/x', events: ['link.deleted'] }, ['events', 0]],
      [{ url: 'not a url', events: ['link.created'] }, ['url']],
      [{ events: ['link.created'] }, ['url']],
      [{ url: 'https://hooks.example.com/x', events: ['link.created'], secret: 'mine' }, []],
    ])('400 invalid_body with issues for %j', async (payload, path) => {
      const orgId = await org('legend');
      const response = await call(orgId, { method: 'POST', url: '/v1/webhooks', payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_body', issues: expect.any(Array) });
      expect(response.json().issues[0].path).toEqual(path);
    });

    it('refused URLs are 400 invalid_webhook_url; the 6th webhook is 409; tiers below legend get 403', async () => {
      const orgId = await org('legend');
      const refused = await call(orgId, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'https://127.0.0.1/hook', events: ['link.created'] },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        error: 'invalid_webhook_url',
        message: expect.stringMatching(/public/),
      });
      const plain = await call(orgId, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'http://hooks.example.com/hook', events: ['link.created'] },
      });
      expect(plain.json()).toMatchObject({
        error: 'invalid_webhook_url',
        message: expect.stringMatching(/https/),
      });

      for (let i = 0; i < 5; i++) {
        const ok = await call(orgId, {
          method: 'POST',
          url: '/v1/webhooks',
          payload: { url: `https://hooks.example.com/${i}`, events: ['app.opened'] },
        });
        expect(ok.statusCode).toBe(201);
      }
      const sixth = await call(orgId, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'https://hooks.example.com/6', events: ['app.opened'] },
      });
      expect(sixth.statusCode).toBe(409);
      expect(sixth.json()).toMatchObject({ error: 'too_many_webhooks' });

      const hero = await org('hero');
      const gated = await call(hero, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: 'https://hooks.example.com/x', events: ['app.opened'] },
      });
      expect(gated.statusCode).toBe(403);
      expect(gated.json()).toMatchObject({ error: 'webhooks' });
      expect((await call(hero, { method: 'GET', url: '/v1/webhooks' })).statusCode).toBe(200);
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
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(swagger, {
      openapi: { openapi: '3.1.0', info: { title: 't', version: '1.0.0' } },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(webhookRoutes, { prefix: '/v1', webhooks: {} as WebhookService });
    await app.ready();
    const doc = app.swagger() as unknown as {
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
    await app.close();
  });
});
