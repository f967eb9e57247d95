import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import {
  createdWebhookSchema,
  createWebhookBody,
  deletedSchema,
  patchWebhookBody,
  webhookListSchema,
  webhookSchema,
} from './schema.js';
import type { WebhookService } from './service.js';

/** /v1/webhooks (hosted-service.md 4.1); registered inside the /v1 scope, which sets request.org. */
export async function webhookRoutes(
  app: FastifyInstance,
  deps: { webhooks: WebhookService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { webhooks } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['webhooks'];
  r.get(
    '/webhooks',
    {
      config: { permission: 'webhooks:read' },
      schema: {
        operationId: op('listWebhooks'),
        summary: 'List webhook endpoints',
        tags,
        response: { 200: webhookListSchema, ...errorResponses() },
      },
    },
    async (request) => ({ webhooks: await webhooks.list(orgOf(request)) }),
  );
  r.post(
    '/webhooks',
    {
      config: { permission: 'webhooks:write' },
      schema: {
        operationId: op('createWebhook'),
        summary: 'Create a webhook endpoint',
        tags,
        description:
          'The URL must be https and publicly reachable. The response carries the signing secret, once.',
        body: createWebhookBody,
        response: { 201: createdWebhookSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.create(orgOf(request), request.body)),
  );
  r.patch(
    '/webhooks/:id',
    {
      config: { permission: 'webhooks:write' },
      schema: {
        operationId: op('updateWebhook'),
        summary: 'Update a webhook endpoint',
        tags,
        description: 'Change url, events or active; `{active: false}` alone pauses on every plan.',
        params: idParams,
        body: patchWebhookBody,
        response: { 200: webhookSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => webhooks.patch(orgOf(request), request.params.id, request.body),
  );
  r.delete(
    '/webhooks/:id',
    {
      config: { permission: 'webhooks:write' },
      schema: {
        operationId: op('deleteWebhook'),
        summary: 'Delete a webhook endpoint',
        tags,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.remove(orgOf(request), request.params.id),
  );
}
