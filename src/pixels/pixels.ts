import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuditLog } from '../audit/service.js';
import { appError, featureError } from '../errors.js';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';

/** Ad pixels: the three kinds of decisions.md, each id validated for its kind. */

const PIXEL_ID_RULES = {
  meta: { pattern: /^\d{15,16}$/, message: 'A meta pixel id is 15 or 16 digits' },
  tiktok: { pattern: /^[A-Z0-9]{20}$/, message: 'A tiktok pixel id is 20 characters of A-Z and 0-9' },
  gtm: {
    pattern: /^GTM-[A-Z0-9]{4,10}$/,
    message: 'A gtm container id is GTM- and 4 to 10 characters of A-Z and 0-9',
  },
} as const;

const pixelBody = z
  .object({
    type: z.enum(['meta', 'tiktok', 'gtm']),
    pixelId: z.string().trim(),
    name: z
      .string()
      .transform((name) => name.trim())
      .pipe(z.string().min(1).max(100)),
  })
  .strict()
  .superRefine((pixel, context) => {
    const rule = PIXEL_ID_RULES[pixel.type];
    if (!rule.pattern.test(pixel.pixelId))
      context.addIssue({ code: 'custom', path: ['pixelId'], message: rule.message });
  });

const pixelSchema = z.object({
  id: z.uuid(),
  type: z.enum(['meta', 'tiktok', 'gtm']),
  pixelId: z.string(),
  name: z.string(),
  createdAt: z.string(),
});
export type Pixel = z.infer<typeof pixelSchema>;

export interface PixelServiceDeps {
  store: Store;
  now: () => Date;
  uuid: () => string;
  /** Drops the organization's compiled links on every instance: escape pages inject their pixels. */
  invalidateOrganization: (orgId: string) => void;
  audit?: AuditLog;
}

export function createPixelService(deps: PixelServiceDeps) {
  const { db } = deps.store;
  return {
    async create(ctx: OrgContext, input: z.infer<typeof pixelBody>): Promise<Pixel> {
      if (!ctx.features.pixelInjection) throw featureError('pixelInjection');
      const pixel = {
        id: deps.uuid(),
        type: input.type,
        pixelId: input.pixelId,
        name: input.name,
        createdAt: deps.now().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('pixels')
          .values({
            id: pixel.id,
            org_id: ctx.orgId,
            type: pixel.type,
            pixel_id: pixel.pixelId,
            name: pixel.name,
            created_at: pixel.createdAt,
          })
          .execute();
        await deps.audit?.record(trx, ctx, {
          action: 'pixel.created',
          target: { type: 'pixel', id: pixel.id },
          changes: { type: pixel.type, pixelId: pixel.pixelId, name: pixel.name },
        });
      });
      return pixel;
    },

    async list(ctx: OrgContext): Promise<Pixel[]> {
      const rows = await db
        .selectFrom('pixels')
        .selectAll()
        .where('org_id', '=', ctx.orgId)
        .orderBy('created_at', 'asc')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        type: row.type as Pixel['type'],
        pixelId: row.pixel_id,
        name: row.name,
        createdAt: row.created_at,
      }));
    },

    /** Removes the pixel from every link's pixelIds (the assignment rows cascade) and deletes it. */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      const deleted = await db.transaction().execute(async (trx) => {
        const owned = await trx
          .selectFrom('pixels')
          .select('id')
          .where('org_id', '=', ctx.orgId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (!owned) return false;
        await trx.deleteFrom('link_pixels').where('pixel_id', '=', id).execute();
        await trx.deleteFrom('pixels').where('id', '=', id).execute();
        await deps.audit?.record(trx, ctx, { action: 'pixel.deleted', target: { type: 'pixel', id } });
        return true;
      });
      if (!deleted) throw appError('not_found', 'No such pixel');
      deps.invalidateOrganization(ctx.orgId);
      return { deleted: true };
    },
  };
}

export type PixelService = ReturnType<typeof createPixelService>;

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
