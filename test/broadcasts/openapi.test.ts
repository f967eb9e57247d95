import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { audienceRoutes, captureRoutes } from '../../src/audience/routes.js';
import { createAudienceService } from '../../src/audience/service.js';
import { broadcastRoutes } from '../../src/broadcasts/routes.js';
import { createSegmentService, segmentRoutes } from '../../src/broadcasts/segments.js';
import { createBroadcastService } from '../../src/broadcasts/service.js';
import { createUnsubscribeService, unsubscribeRoutes } from '../../src/broadcasts/unsubscribe.js';
import { createMemoryRateLimiter } from '../../src/http/rate-limit.js';
import type { Store } from '../../src/store/database.js';

describe('the OpenAPI description of the audience and broadcast routes', () => {
  it('documents every route with its operation id, registered as the hosted app will', async () => {
    const store = { db: {} } as unknown as Store;
    const base = { store, now: () => new Date(), uuid: () => 'x', flagsOff: new Set<string>() };
    const audience = createAudienceService({ ...base, events: { emitIn: async () => 0, nudge: () => {} } });
    const segments = createSegmentService(base);
    const broadcasts = createBroadcastService({ ...base, segments, mailConfigured: true, nudge: () => {} });
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(swagger, {
      openapi: { openapi: '3.1.0', info: { title: 't', version: '1.0.0' } },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(
      async (v1) => {
        await v1.register(audienceRoutes, { audience });
      },
      { prefix: '/v1' },
    );
    await app.register(
      async (api) => {
        await api.register(audienceRoutes, { audience, dashboard: true });
        await api.register(segmentRoutes, { segments });
        await api.register(broadcastRoutes, { broadcasts });
      },
      { prefix: '/api' },
    );
    const limiter = createMemoryRateLimiter({ limit: 20, windowSeconds: 60 });
    await app.register(captureRoutes, { audience, limiter, geoHeader: 'cf-ipcountry' });
    await app.register(unsubscribeRoutes, {
      unsubscribe: createUnsubscribeService({ store, now: () => new Date() }),
    });
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(ops.sort()).toEqual(
      [
        'GET /v1/audience listAudience',
        'GET /v1/audience/export.csv exportAudience',
        'GET /v1/audience/{id} getContact',
        'DELETE /v1/audience/{id} deleteContact',
        'GET /api/audience dashboardListAudience',
        'GET /api/audience/export.csv dashboardExportAudience',
        'GET /api/audience/{id} dashboardGetContact',
        'DELETE /api/audience/{id} dashboardDeleteContact',
        'POST /api/segments createSegment',
        'GET /api/segments listSegments',
        'DELETE /api/segments/{id} deleteSegment',
        'POST /api/broadcasts createBroadcast',
        'GET /api/broadcasts listBroadcasts',
        'GET /api/broadcasts/{id} getBroadcast',
        'PATCH /api/broadcasts/{id} updateBroadcast',
        'POST /api/broadcasts/{id}/send sendBroadcast',
        'POST /api/public/capture captureEmail',
        'GET /u/{token} unsubscribePage',
        'POST /u/{token} unsubscribe',
      ].sort(),
    );
    await app.close();
  });
});
