import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { deletedSchema, folderBody, folderSchema, renamedSchema } from './schema.js';
import type { FolderService } from './service.js';

/** The folder routes, under /v1 and (with the `dashboard` operation prefix) the dashboard's API. */
export async function folderRoutes(
  app: FastifyInstance,
  deps: { folders: FolderService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { folders } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['folders'];
  r.post(
    '/folders',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createFolder'),
        summary: 'Create a folder',
        tags,
        body: folderBody,
        response: { 201: folderSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await folders.create(orgOf(request), request.body.name)),
  );
  r.get(
    '/folders',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('listFolders'),
        summary: 'List folders',
        tags,
        response: { 200: z.object({ folders: z.array(folderSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ folders: await folders.list(orgOf(request)) }),
  );
  r.patch(
    '/folders/:id',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('renameFolder'),
        summary: 'Rename a folder',
        tags,
        params: idParams,
        body: folderBody,
        response: { 200: renamedSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => folders.rename(orgOf(request), request.params.id, request.body.name),
  );
  r.delete(
    '/folders/:id',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('deleteFolder'),
        summary: 'Delete a folder',
        tags,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(404) },
      },
    },
    async (request) => folders.remove(orgOf(request), request.params.id),
  );
}
