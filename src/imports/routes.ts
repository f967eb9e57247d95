import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { createdImportSchema, createImportBody, importListSchema, importSchema } from './schema.js';
import type { ImportService } from './service.js';

/** A CSV of up to 10,000 links (8 MB of text): the import route takes bodies beyond the app's 1 MB default. */
const IMPORT_BODY_LIMIT = 10 * 1024 * 1024;

/** /v1/imports (and the dashboard's /api twin): start an import, follow its progress. */
export async function importRoutes(
  app: FastifyInstance,
  deps: { imports: ImportService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { imports } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['imports'];

  r.post(
    '/imports',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createImport'),
        summary: 'Start importing links from another shortener or a CSV file',
        tags,
        description:
          'Queues an import from a CSV, Bitly, Shlink, Kutt, Dub or YOURLS and answers 202 with its id; ' +
          'follow it with GET /imports/{id}. Slugs, verified custom hostnames, tags, titles and creation ' +
          'dates are kept; a slug already taken is skipped with its reason, and a re-run imports nothing twice. ' +
          'A CSV takes at most 10,000 rows (413 too_many_rows); an organization has at most 3 imports queued ' +
          'or running (429 too_many_imports).',
        body: createImportBody,
        response: { 202: createdImportSchema, ...errorResponses(400, 413) },
      },
    },
    async (request, reply) => reply.code(202).send(await imports.start(orgOf(request), request.body)),
  );

  r.get(
    '/imports',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('listImports'),
        summary: 'List recent imports',
        tags,
        description: 'The 20 most recent imports, newest first.',
        response: { 200: importListSchema, ...errorResponses() },
      },
    },
    async (request) => imports.list(orgOf(request)),
  );

  r.get(
    '/imports/:id',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('getImport'),
        summary: "Get an import's progress and errors",
        tags,
        params: idParams,
        response: { 200: importSchema, ...errorResponses(404) },
      },
    },
    async (request) => imports.get(orgOf(request), request.params.id),
  );
}
