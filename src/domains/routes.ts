import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { domainBody, domainSchema } from './schema.js';
import type { DomainService } from './service.js';

const deletedSchema = z.object({ deleted: z.literal(true) });

/** /v1/domains and its dashboard twin: hostnames an organization owns, proven by a TXT record. */
export async function domainRoutes(
  app: FastifyInstance,
  deps: { domains: DomainService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { domains } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['domains'];
  r.post(
    '/domains',
    {
      config: { permission: 'domains:write' },
      schema: {
        operationId: op('createDomain'),
        summary: 'Add a custom domain',
        tags,
        description:
          'Adds a hostname, unverified. Publish the TXT record in `verification`, then call verify. ' +
          'A hostname is verified by one organization at most (409 `domain_taken`).',
        body: domainBody,
        response: { 201: domainSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await domains.create(orgOf(request), request.body.hostname)),
  );
  r.get(
    '/domains',
    {
      config: { permission: 'domains:read' },
      schema: {
        operationId: op('listDomains'),
        summary: 'List custom domains',
        tags,
        response: { 200: z.object({ domains: z.array(domainSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ domains: await domains.list(orgOf(request)) }),
  );
  r.post(
    '/domains/:id/verify',
    {
      config: { permission: 'domains:write' },
      schema: {
        operationId: op('verifyDomain'),
        summary: "Verify a domain's TXT record",
        tags,
        description:
          'Looks the TXT record up now. 200 verified, or 409 `domain_unverified` with `expected` and `found`.',
        params: idParams,
        response: { 200: domainSchema, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => domains.verify(orgOf(request), request.params.id),
  );
  r.delete(
    '/domains/:id',
    {
      config: { permission: 'domains:write' },
      schema: {
        operationId: op('deleteDomain'),
        summary: 'Remove a custom domain',
        tags,
        description: 'Refused with 409 `domain_in_use` while any link, archived or not, is on the hostname.',
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => domains.remove(orgOf(request), request.params.id),
  );
}
