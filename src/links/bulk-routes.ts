import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contentResponse, errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { LinkExport } from './bulk-export.js';
import { BULK_SYNC_MAX, bulkActionBody, bulkActionJobSchema, exportQuery } from './bulk-schema.js';
import type { BulkActionService } from './bulk-service.js';

/** /v1/bulk-actions and /v1/links/export.csv (and their dashboard twins): work on many links at once. */
export async function bulkActionRoutes(
  app: FastifyInstance,
  deps: { bulkActions: BulkActionService; exporter: LinkExport; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { bulkActions } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['links'];

  r.post(
    '/bulk-actions',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createBulkAction'),
        summary: 'Tag, untag, move, archive or unarchive many links',
        tags,
        description:
          'The selection is `{ids: [...]}` (up to 1,000) or `{filter: {...}}` (the filters of GET /links, ' +
          'frozen when asked: links made later are not touched). Each link is changed as a single write ' +
          'changes it (its checks, its event, one audit row); a link already so is `unchanged` and not ' +
          `written. Up to ${BULK_SYNC_MAX} links: done now, 200 with each link's outcome. More: 202, a job ` +
          'to follow with GET /bulk-actions/{id}. Needs the bulkCreate plan power; an organization ' +
          'has at most 3 jobs queued or running (429 too_many_bulk_actions).',
        body: bulkActionBody,
        response: {
          200: bulkActionJobSchema,
          202: bulkActionJobSchema,
          ...errorResponses(400, 403),
        },
      },
    },
    async (request, reply) => {
      const { job, queued } = await bulkActions.start(orgOf(request), request.body);
      if (!queued) return job;
      return reply.code(202).header('location', `${request.url}/${job.id}`).send(job);
    },
  );

  r.get(
    '/bulk-actions/:id',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('getBulkAction'),
        summary: "Get a bulk action's progress",
        tags,
        description:
          '`status` is queued, running, done or failed; `processed` of `total` links are handled, each ' +
          '`changed`, `unchanged` or `failed`; `results` lists the failed links with their error body.',
        params: idParams,
        response: { 200: bulkActionJobSchema, ...errorResponses(404) },
      },
    },
    async (request) => bulkActions.get(orgOf(request), request.params.id),
  );

  r.get(
    '/links/export.csv',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('exportLinks'),
        summary: 'Export links as CSV',
        tags,
        description:
          'The links named by `ids` (comma-separated, up to 1,000), or those matching the filters of GET ' +
          '/links, as CSV with the columns the CSV import reads: `url,slug,tags,title,created_at` (tags ' +
          'separated by `|`). Import the file (POST /imports) to make the same links again. Cells beginning ' +
          'with =, +, -, @, tab or carriage return are prefixed with an apostrophe, slugs excepted.',
        querystring: exportQuery,
        produces: ['text/csv'],
        response: { 200: contentResponse('The links', 'text/csv'), ...errorResponses(400) },
      },
    },
    async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="linkhop-links.csv"')
        .header('cache-control', 'no-store')
        .send(Readable.from(deps.exporter.csv(orgOf(request), request.query)) as never),
  );
}
