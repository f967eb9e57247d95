import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuditLog } from '../audit/service.js';
import { AppError, appError, featureError } from '../errors.js';
import { errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { createSegmentRepo } from './segment-repo.js';

/** Audience segments (decisions.md "Broadcasts and segments"): saved filters over the contact list. */

const day = z.iso.date();
const instant = z.iso.datetime({ offset: true });
const bound = z.union([day, instant]);

export const segmentFilterSchema = z
  .object({
    sourceSlug: z.string().min(1).max(64).optional(),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'country is an ISO 3166 alpha-2 code')
      .transform((code) => code.toUpperCase())
      .optional(),
    capturedFrom: bound.optional().describe('inclusive; a date or an instant'),
    capturedTo: bound.optional().describe('inclusive; a date means the whole of that day (UTC)'),
  })
  .strict();
export type SegmentFilter = z.infer<typeof segmentFilterSchema>;
// The response twin: no transforms, which a response serializer cannot run backwards.
const segmentFilterOut = z
  .object({
    sourceSlug: z.string().optional(),
    country: z.string().optional(),
    capturedFrom: z.string().optional(),
    capturedTo: z.string().optional(),
  })
  .meta({ id: 'SegmentFilter' });

const segmentBody = z
  .object({ name: z.string().trim().min(1).max(100), filter: segmentFilterSchema.default({}) })
  .strict();
export const segmentSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    filter: segmentFilterOut,
    count: z.number().int().describe('contacts matching now'),
    createdAt: z.string(),
  })
  .meta({ id: 'Segment' });
export type Segment = z.infer<typeof segmentSchema>;

export function unknownSegment(): AppError {
  return new AppError('unknown_segment', 400, 'The segment does not exist');
}

export function createSegmentService(deps: {
  store: Store;
  now: () => Date;
  uuid: () => string;
  flagsOff: ReadonlySet<string>;
  /** The audit log: each segment made or deleted, logged in its transaction. */
  audit?: AuditLog;
}) {
  const repo = createSegmentRepo(deps.store);
  // Segments belong to the broadcasts product: its flag first, then the legend-only entitlement.
  const requireFlag = () => {
    if (deps.flagsOff.has('broadcasts')) throw appError('feature_disabled');
  };
  const requireSegments = (ctx: OrgContext) => {
    requireFlag();
    if (!ctx.features.audienceSegments) throw featureError('audienceSegments');
  };
  const present = async (row: {
    id: string;
    org_id: string;
    name: string;
    filter: string;
    created_at: string;
  }) => {
    const filter = JSON.parse(row.filter) as SegmentFilter;
    return {
      id: row.id,
      name: row.name,
      filter,
      count: await repo.countMatching(row.org_id, filter),
      createdAt: row.created_at,
    };
  };

  return {
    async create(ctx: OrgContext, input: z.infer<typeof segmentBody>): Promise<Segment> {
      requireSegments(ctx);
      const row = {
        id: deps.uuid(),
        org_id: ctx.orgId,
        name: input.name,
        filter: JSON.stringify(input.filter),
        created_at: deps.now().toISOString(),
      };
      await repo.transaction(async (trx) => {
        await repo.insert(trx, row);
        await deps.audit?.record(trx, ctx, {
          action: 'segment.created',
          target: { type: 'segment', id: row.id },
          changes: { name: { from: null, to: row.name }, filter: { from: null, to: input.filter } },
        });
      });
      return present(row);
    },

    async list(ctx: OrgContext): Promise<Segment[]> {
      requireSegments(ctx);
      const rows = await repo.list(ctx.orgId);
      return Promise.all(rows.map(present));
    },

    /** The filter of one of the organization's segments; unknown_segment otherwise. */
    async filterOf(ctx: OrgContext, id: string): Promise<SegmentFilter> {
      const filter = await repo.filterText(ctx.orgId, id);
      if (filter === undefined) throw unknownSegment();
      return JSON.parse(filter) as SegmentFilter;
    },

    /** No tier gate: a downgraded organization can still tidy up. */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      requireFlag();
      await repo.transaction(async (trx) => {
        const gone = await repo.delete(trx, ctx.orgId, id);
        if (!gone) throw appError('not_found', 'No such segment');
        await deps.audit?.record(trx, ctx, {
          action: 'segment.deleted',
          target: { type: 'segment', id },
          changes: { name: { from: gone.name, to: null } },
        });
      });
      return { deleted: true };
    },
  };
}

export type SegmentService = ReturnType<typeof createSegmentService>;

/** `/api/segments`; register inside the authenticated /api scope. */
export async function segmentRoutes(app: FastifyInstance, deps: { segments: SegmentService }): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['broadcasts'];
  r.post(
    '/segments',
    {
      config: { permission: 'audience:write' },
      schema: {
        operationId: 'createSegment',
        summary: 'Create an audience segment',
        tags,
        description: 'Needs audienceSegments (legend) and the broadcasts flag.',
        body: segmentBody,
        response: { 201: segmentSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await deps.segments.create(orgOf(request), request.body)),
  );
  r.get(
    '/segments',
    {
      config: { permission: 'audience:read' },
      schema: {
        operationId: 'listSegments',
        summary: 'List audience segments',
        tags,
        response: { 200: z.object({ segments: z.array(segmentSchema) }), ...errorResponses(403) },
      },
    },
    async (request) => ({ segments: await deps.segments.list(orgOf(request)) }),
  );
  r.delete(
    '/segments/:id',
    {
      config: { permission: 'audience:write' },
      schema: {
        operationId: 'deleteSegment',
        summary: 'Delete an audience segment',
        tags,
        params: idParams,
        response: { 200: z.object({ deleted: z.literal(true) }), ...errorResponses(403, 404) },
      },
    },
    async (request) => deps.segments.remove(orgOf(request), request.params.id),
  );
}
