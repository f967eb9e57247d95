import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { featureError } from '../errors.js';
import { toAppError } from '../http/errors.js';
import { errorBody, errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { plainValidationMessage, type ValidationIssue } from '../http/validation-messages.js';
import { createLinkBody, linkHealthHistorySchema, linkSchema, listQuery, updateLinkBody } from './schema.js';
import type { LinkService } from './service.js';

const archivedSchema = z.object({ archived: z.literal(true), note: z.string() });
// Each item is validated on its own (a bad item is that item's error, not the request's), so the body
// accepts any items; the document still describes them as create bodies.
const { $schema: _, ...createLinkJsonSchema } = z.toJSONSchema(createLinkBody, {
  io: 'input',
  unrepresentable: 'any',
});
const bulkItem = z.unknown().meta(createLinkJsonSchema);
const bulkBody = z
  .object({ links: z.array(bulkItem).min(1, 'Send 1 to 100 links').max(100, 'Send 1 to 100 links') })
  .strict();
const bulkResult = z.object({ results: z.array(z.union([linkSchema, errorBody])) });

/** /v1/links: list, create, read, edit, archive. One service call per route. */
export async function linkRoutes(
  app: FastifyInstance,
  deps: { links: LinkService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { links } = deps;
  // The dashboard registers the same routes under /api: its operations get their own ids.
  const op = operationIds(deps.operationPrefix);

  r.get(
    '/links',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('listLinks'),
        summary: 'List links',
        tags: ['links'],
        description:
          'Live links, newest first (`archived=true`: the archived ones instead). `q` matches a ' +
          'case-insensitive substring of the slug or the destination, `tag` an exact tag, `folderId` a ' +
          'folder and `expired=true|false` whether the link is expired; filters combine, and ' +
          '`limit`/`offset` page the result.',
        querystring: listQuery,
        response: { 200: z.object({ links: z.array(linkSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({ links: await links.list(orgOf(request), request.query) }),
  );

  r.post(
    '/links',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createLink'),
        summary: 'Create a link',
        tags: ['links'],
        body: createLinkBody,
        response: { 201: linkSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await links.create(orgOf(request), request.body)),
  );

  r.post(
    '/links/bulk',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('bulkCreateLinks'),
        summary: 'Create up to 100 links',
        tags: ['links'],
        description:
          'Creates up to 100 links; each result is the Link or the error body for that item, in order.',
        body: bulkBody,
        response: { 200: bulkResult, ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      const ctx = orgOf(request);
      if (!ctx.features.bulkCreate) throw featureError('bulkCreate');
      const results = [];
      // One at a time, in order: caps and slug collisions then behave exactly as single creates would.
      for (const item of request.body.links) {
        const parsed = createLinkBody.safeParse(item);
        if (!parsed.success) {
          const issues = parsed.error.issues as unknown as ValidationIssue[];
          results.push({ error: 'invalid_body', message: plainValidationMessage(issues), issues });
          continue;
        }
        try {
          results.push(await links.create(ctx, parsed.data));
        } catch (error) {
          const appError = toAppError(error);
          if (appError.status >= 500) throw error;
          results.push(appError.toBody());
        }
      }
      return { results };
    },
  );

  r.get(
    '/links/:id',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('getLink'),
        summary: 'Get a link',
        tags: ['links'],
        params: idParams,
        response: { 200: linkSchema, ...errorResponses(404) },
      },
    },
    async (request) => links.get(orgOf(request), request.params.id),
  );

  r.get(
    '/links/:id/health',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('getLinkHealth'),
        summary: "Get a link's destination health and its last checks",
        tags: ['links'],
        description:
          "The destination's health (as on the link) and its last 20 checks, newest first: when, the " +
          'outcome (`ok`, `failed`, or `neutral` for 401/403/429), the HTTP status or the error, how long it took.',
        params: idParams,
        response: { 200: linkHealthHistorySchema, ...errorResponses(404) },
      },
    },
    async (request) => links.health(orgOf(request), request.params.id),
  );

  r.patch(
    '/links/:id',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('updateLink'),
        summary: 'Update a link',
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
      config: { permission: 'links:write' },
      schema: {
        operationId: op('archiveLink'),
        summary: 'Archive a link',
        tags: ['links'],
        params: idParams,
        response: { 200: archivedSchema, ...errorResponses(404) },
      },
    },
    async (request) => links.archive(orgOf(request), request.params.id),
  );

  r.post(
    '/links/:id/unarchive',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('unarchiveLink'),
        summary: 'Restore an archived link',
        tags: ['links'],
        description:
          'Restores an archived link to the live list; it counts against the plan’s link cap again.',
        params: idParams,
        response: { 200: linkSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => links.unarchive(orgOf(request), request.params.id),
  );
}
