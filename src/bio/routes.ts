import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { sendNotFoundPage } from '../http/html.js';
import { errorResponses, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { hasFeature } from '../tenancy/plans.js';
import { renderBioPage } from './page-html.js';
import { creatorPageCsp } from './page-shell.js';
import { bioBody, bioPageSchema, bioStatsSchema, publicBioSchema } from './schema.js';
import type { BioService } from './service.js';

const envelope = z.object({ page: bioPageSchema.nullable() });
const deletedSchema = z.object({ deleted: z.literal(true) });
const handleParams = z.object({ handle: z.string() });
const blocksBody = z
  .unknown()
  .describe(
    'The ordered block array itself, or `{blocks: [...]}`; validated as a whole (400 `invalid_blocks`).',
  );

/**
 * /bio, /bio/blocks, /bio/stats. Registered twice: under /api behind the session hook and under /v1
 * behind the API-key hook; `operationPrefix` keeps the OpenAPI operation ids apart.
 */
export async function bioRoutes(
  app: FastifyInstance,
  deps: { bio: BioService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { bio } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['bio'];

  r.get(
    '/bio',
    {
      config: { permission: 'bio:read' },
      schema: {
        operationId: op('getBio'),
        summary: 'Get the link-in-bio page',
        tags,
        response: { 200: envelope, ...errorResponses(403) },
      },
    },
    async (request) => bio.get(orgOf(request)),
  );
  r.put(
    '/bio',
    {
      config: { permission: 'bio:write' },
      schema: {
        operationId: op('saveBio'),
        summary: 'Create or update the bio page',
        tags,
        description: 'Upsert. Omitted fields keep their stored value; a new page starts unpublished.',
        body: bioBody,
        response: { 200: bioPageSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request) => bio.save(orgOf(request), request.body),
  );
  r.delete(
    '/bio',
    {
      config: { permission: 'bio:write' },
      schema: {
        operationId: op('deleteBio'),
        summary: 'Delete the bio page',
        tags,
        response: { 200: deletedSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => bio.remove(orgOf(request)),
  );
  r.put(
    '/bio/blocks',
    {
      config: { permission: 'bio:write' },
      schema: {
        operationId: op('replaceBioBlocks'),
        summary: "Replace the bio page's blocks",
        tags,
        body: blocksBody,
        response: { 200: bioPageSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => bio.replaceBlocks(orgOf(request), request.body),
  );
  r.get(
    '/bio/stats',
    {
      config: { permission: 'bio:read' },
      schema: {
        operationId: op('getBioStats'),
        summary: "Get the bio page's stats",
        tags,
        response: { 200: bioStatsSchema, ...errorResponses(403) },
      },
    },
    async (request) => bio.stats(orgOf(request)),
  );
}

/** GET /public/bio/{handle}, under /api, with no credential. */
export async function publicBioRoutes(app: FastifyInstance, deps: { bio: BioService }): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/public/bio/:handle',
    {
      config: { permission: 'public' },
      schema: {
        operationId: 'getPublicBio',
        summary: 'Get a published bio page',
        tags: ['bio'],
        security: [],
        params: handleParams,
        response: { 200: publicBioSchema, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const page = await deps.bio.publicPage(request.params.handle);
      reply.header('cache-control', 'public, max-age=60');
      return page;
    },
  );
}

/** Headers of every public creator page: its own CSP, no sniffing, short shared caching. */
export function sendCreatorPage(reply: FastifyReply, nonce: string, html: string): FastifyReply {
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', creatorPageCsp(nonce))
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'strict-origin-when-cross-origin')
    .header('cache-control', 'public, max-age=60')
    .send(html);
}

/** A person's 404 (and a switched-off flag) is the HTML not-found page; anything else is re-thrown. */
export function notFoundOr(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof AppError && (error.status === 404 || error.code === 'feature_disabled')) {
    return sendNotFoundPage(reply);
  }
  throw error;
}

/** GET /@{handle}: the published bio page as HTML, at the root of the default host. */
export async function bioPageRoutes(
  app: FastifyInstance,
  deps: { bio: BioService; nonce: () => string; baseUrl: string },
): Promise<void> {
  app.get<{ Params: { handle: string } }>('/@:handle', { schema: { hide: true } }, async (request, reply) => {
    try {
      if (deps.bio.flagOff()) return sendNotFoundPage(reply);
      const { view, tier } = await deps.bio.published(request.params.handle);
      const nonce = deps.nonce();
      const html = renderBioPage({
        page: view,
        nonce,
        url: `${deps.baseUrl}/@${view.handle}`,
        branded: !hasFeature(tier, 'removeBranding'),
      });
      return sendCreatorPage(reply, nonce, html);
    } catch (error) {
      return notFoundOr(reply, error);
    }
  });
}
