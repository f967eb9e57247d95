import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { pixelBody, pixelSchema } from './schema.js';
import type { PixelService } from './service.js';

/** The pixel routes, under /v1 and (with the `dashboard` operation prefix) the dashboard's API. */
export async function pixelRoutes(
  app: FastifyInstance,
  deps: { pixels: PixelService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { pixels } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['pixels'];
  r.post(
    '/pixels',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createPixel'),
        summary: 'Add a tracking pixel',
        tags,
        body: pixelBody,
        response: { 201: pixelSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await pixels.create(orgOf(request), request.body)),
  );
  r.get(
    '/pixels',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('listPixels'),
        summary: 'List tracking pixels',
        tags,
        response: { 200: z.object({ pixels: z.array(pixelSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ pixels: await pixels.list(orgOf(request)) }),
  );
  r.delete(
    '/pixels/:id',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('deletePixel'),
        summary: 'Remove a tracking pixel',
        tags,
        params: idParams,
        response: { 200: z.object({ deleted: z.literal(true) }), ...errorResponses(404) },
      },
    },
    async (request) => pixels.remove(orgOf(request), request.params.id),
  );
}
