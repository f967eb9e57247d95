import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import {
  type BroadcastService,
  broadcastSchema,
  createBroadcastBody,
  patchBroadcastBody,
} from './service.js';

/**
 * `/api/broadcasts`; register inside the authenticated /api scope. Writing needs the broadcasts flag and
 * plan (hero and up; a segment needs legend); reading needs the flag only. Codes: 403 `broadcasts`,
 * `audience_segments`, `feature_disabled`; 400 `unknown_segment`; 409 `broadcast_not_draft`; 503
 * `not_provisioned` when SMTP_URL is unset.
 */
export async function broadcastRoutes(
  app: FastifyInstance,
  deps: { broadcasts: BroadcastService },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { broadcasts } = deps;
  const tags = ['broadcasts'];
  r.post(
    '/broadcasts',
    {
      config: { permission: 'audience:write' },
      schema: {
        operationId: 'createBroadcast',
        summary: 'Create a broadcast draft',
        tags,
        description: 'Creates a draft. Recipients: everyone, or the contacts of `segmentId` (legend).',
        body: createBroadcastBody,
        response: { 201: broadcastSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await broadcasts.create(orgOf(request), request.body)),
  );
  r.get(
    '/broadcasts',
    {
      config: { permission: 'audience:read' },
      schema: {
        operationId: 'listBroadcasts',
        summary: 'List broadcasts',
        tags,
        description: 'The newest 100 broadcasts, newest first, each with its status. Flag-gated only.',
        response: { 200: z.object({ broadcasts: z.array(broadcastSchema) }), ...errorResponses(403) },
      },
    },
    async (request) => ({ broadcasts: await broadcasts.list(orgOf(request)) }),
  );
  r.get(
    '/broadcasts/:id',
    {
      config: { permission: 'audience:read' },
      schema: {
        operationId: 'getBroadcast',
        summary: 'Get a broadcast',
        tags,
        params: idParams,
        response: { 200: broadcastSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => broadcasts.get(orgOf(request), request.params.id),
  );
  r.patch(
    '/broadcasts/:id',
    {
      config: { permission: 'audience:write' },
      schema: {
        operationId: 'updateBroadcast',
        summary: 'Update a broadcast draft',
        tags,
        description: 'Edits a draft; 409 `broadcast_not_draft` once it was sent.',
        params: idParams,
        body: patchBroadcastBody,
        response: { 200: broadcastSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => broadcasts.update(orgOf(request), request.params.id, request.body),
  );
  r.post(
    '/broadcasts/:id/send',
    {
      config: { permission: 'audience:write' },
      schema: {
        operationId: 'sendBroadcast',
        summary: 'Send a broadcast',
        tags,
        description:
          'Queues one recipient row per contact and sends in the background: 202 with status `sending`, ' +
          'later `sent` (or `failed` when nothing was sent and something failed). Unsubscribed contacts and ' +
          'blank consent are `skipped`. Every email carries RFC 8058 List-Unsubscribe headers.',
        params: idParams,
        response: { 202: broadcastSchema, ...errorResponses(400, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.code(202).send(await broadcasts.send(orgOf(request), request.params.id)),
  );
}
