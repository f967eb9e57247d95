import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { createLinkBody, linkSchema, listQuery, updateLinkBody } from './schema.js';
import type { LinkService } from './service.js';

const archivedSchema = z.object({ archived: z.literal(true), note: z.string() });

/** /v1/links: list, create, read, edit, archive. One service call per route. */
export async function linkRoutes(
  app: FastifyInstance,
  deps: { links: LinkService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { links } = deps;
  // The dashboard registers the same routes under /api: its operations get their own ids.
  const op = (id: string) =>
    deps.operationPrefix ? `${deps.operationPrefix}${id[0]?.toUpperCase()}${id.slice(1)}` : id;

  r.get(
    '/links',
    {
      schema: {
        operationId: op('listLinks'),
        tags: ['links'],
        querystring: listQuery,
        response: { 200: z.object({ links: z.array(linkSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({ links: await links.list(orgOf(request), request.query) }),
  );

  r.post(
    '/links',
    {
      schema: {
        operationId: op('createLink'),
        tags: ['links'],
        body: createLinkBody,
        response: { 201: linkSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await links.create(orgOf(request), request.body)),
  );

  r.get(
    '/links/:id',
    {
      schema: {
        operationId: op('getLink'),
        tags: ['links'],
        params: idParams,
        response: { 200: linkSchema, ...errorResponses(404) },
      },
    },
    async (request) => links.get(orgOf(request), request.params.id),
  );

  r.patch(
    '/links/:id',
    {
      schema: {
        operationId: op('updateLink'),
        tags: ['links'],
        params: idParams,
        body: updateLinkBody,
        response: { 200: linkSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => links.update(orgOf(request), request.params.id, request.body),
  );

  r.post(
    '/links/:id/archive',
    {
      schema: {
        operationId: op('archiveLink'),
        tags: ['links'],
        params: idParams,
        response: { 200: archivedSchema, ...errorResponses(404) },
      },
    },
    async (request) => links.archive(orgOf(request), request.params.id),
  );
}
