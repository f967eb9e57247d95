import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contentResponse, errorResponses, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { auditExportQuery, auditListQuery, auditPageSchema } from './schema.js';
import type { AuditLog } from './service.js';

/** /v1/audit-log and its CSV export, and their dashboard twins: owners and admins only. */
export async function auditRoutes(
  app: FastifyInstance,
  deps: { audit: AuditLog; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const op = operationIds(deps.operationPrefix);
  const tags = ['audit'];

  r.get(
    '/audit-log',
    {
      config: { permission: 'audit:read' },
      schema: {
        operationId: op('listAuditLog'),
        summary: 'List audit log entries',
        tags,
        description:
          'Newest first. `action` (e.g. `link.updated`) and `targetId` filter; pass `nextCursor` back as ' +
          '`cursor` for the next page (null on the last).',
        querystring: auditListQuery,
        response: { 200: auditPageSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => deps.audit.list(orgOf(request).orgId, request.query),
  );

  r.get(
    '/audit-log/export',
    {
      config: { permission: 'audit:read' },
      schema: {
        operationId: op('exportAuditLog'),
        summary: 'Export the audit log as CSV',
        tags,
        description: 'The log as CSV, newest first (cells neutralized; `changes` is a JSON cell).',
        querystring: auditExportQuery,
        produces: ['text/csv'],
        response: { 200: contentResponse('The audit log as CSV', 'text/csv'), ...errorResponses(400, 403) },
      },
    },
    async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="linkhop-audit-log.csv"')
        .header('cache-control', 'no-store')
        .send(Readable.from(deps.audit.exportCsv(orgOf(request).orgId, request.query)) as never),
  );
}
