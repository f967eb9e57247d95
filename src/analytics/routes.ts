import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contentResponse, errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { escapeCellRoutes } from './escape-routes.js';
import { csvChunks, jsonChunks } from './read/export.js';
import type { AnalyticsService } from './service.js';

/** Analytics reads (/v1 and the dashboard's /api twins) and the public tap beacon. */

const tags = ['analytics'];
const count = z.number().describe('sampled estimate');
const rateSchema = z
  .number()
  .nullable()
  .describe('opened / reported outcomes; null when nothing was reported');
const upgrade = z.string().optional().describe('set when the plan cannot see the data');
const outcomesSchema = z.object({ opened: count, browser: count, broken: count });
const sourcesSchema = z
  .object({
    link: count.describe('visits through the short URL itself (and through QR codes made before sources)'),
    qr: count.describe("scans of the link's QR code (its `?qr=1` marker)"),
  })
  .describe('The clicks split by where they came from; `link` + `qr` = `total`.');

const linkStatsSchema = z
  .object({
    configured: z.boolean(),
    total: count,
    sources: sourcesSchema,
    appOpenRate: rateSchema,
    outcomes: outcomesSchema,
    upgrade,
  })
  .meta({ id: 'LinkStats', description: 'The last 90 days of one link.' });

const clickSchema = z.object({
  id: z.string(),
  at: z.string(),
  outcome: z.string().describe('opened, browser, broken; unknown (no report); redirect (no hand-off)'),
  sourceApp: z.string().nullable(),
  country: z.string().nullable(),
  city: z.string().nullable(),
  device: z.string().nullable(),
  source: z.enum(['link', 'qr']).describe("`qr` for a scan of the link's QR code"),
});
const clicksSchema = z
  .object({ configured: z.boolean(), clicks: z.array(clickSchema), upgrade })
  .meta({ id: 'Clicks' });

const abStatsSchema = z
  .object({
    configured: z.boolean(),
    sampled: z.literal(true),
    window: z.number().int(),
    variants: z.array(
      z.object({
        url: z.string(),
        weight: z.number(),
        variant: z.number().int(),
        clicks: count,
        outcomes: count,
        opened: count,
        appOpenRate: rateSchema,
      }),
    ),
    upgrade,
  })
  .meta({ id: 'AbStats' });

const named = <K extends string>(key: K) =>
  z.array(z.object({ [key]: z.string().nullable(), clicks: count }));
const analyticsSchema = z
  .object({
    configured: z.boolean(),
    sampled: z.literal(true),
    days: z.number().int(),
    tier: z.string(),
    total: count,
    sources: sourcesSchema,
    perLink: z.array(z.object({ slug: z.string(), clicks: count })),
    countries: named('country').optional(),
    devices: z.array(z.object({ device: z.string(), clicks: count })).optional(),
    platforms: named('platform').optional(),
    referrers: named('referrer').optional(),
    timeseries: z.array(z.object({ day: z.string(), clicks: count })).optional(),
    hourly: z.array(z.object({ hour: z.number().int(), clicks: count })).optional(),
    outcomes: outcomesSchema.optional(),
    platformOutcomes: z
      .array(z.object({ platform: z.string().nullable(), outcome: z.string(), clicks: count }))
      .optional(),
    upgrade,
  })
  .meta({ id: 'Analytics' });

const id = z.string().min(1).max(64);
export const analyticsQuery = z
  .object({
    days: z.coerce.number().int().min(1).max(90, '`days` is 1 to 90').default(30),
    linkId: id.optional(),
    folderId: id.optional(),
    tag: z.string().min(1).max(64).optional(),
  })
  .strict();
const exportQuery = analyticsQuery.extend({ format: z.enum(['csv', 'json']).default('csv') }).strict();
export const clicksQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200, '`limit` is at most 200').optional(),
    offset: z.coerce.number().int().min(0).optional(),
  })
  .strict();

type Deps = { analytics: AnalyticsService };

/** Every read, served by both /v1 and the dashboard; `op` names the operation for its scope. */
function sharedRoutes(app: FastifyInstance, deps: Deps, op: (name: string) => string): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { analytics } = deps;
  r.get(
    '/links/:id/stats',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('getLinkStats'),
        summary: "Get a link's stats",
        tags,
        params: idParams,
        response: { 200: linkStatsSchema, ...errorResponses(404) },
      },
    },
    async (request) => analytics.linkStats(orgOf(request), request.params.id),
  );
  r.get(
    '/links/:id/ab-stats',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('getLinkAbStats'),
        summary: "Get a link's A/B test results",
        tags,
        params: idParams,
        response: { 200: abStatsSchema, ...errorResponses(404) },
      },
    },
    async (request) => analytics.abStats(orgOf(request), request.params.id),
  );
  r.get(
    '/analytics',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('getAnalytics'),
        summary: 'Get analytics for a period',
        tags,
        description:
          'Whole UTC days ending today. Below hero: totals and `upgrade`; from hero up every series.',
        querystring: analyticsQuery,
        response: { 200: analyticsSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => analytics.analytics(orgOf(request), request.query),
  );
  escapeCellRoutes(app, analytics, op, analyticsQuery);
  r.get(
    '/links/:id/clicks',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('listLinkClicks'),
        summary: "List a link's recent clicks",
        tags,
        description:
          'Newest first, last 90 days; `limit` (max 200) and `offset`; without both, the newest 1000.',
        params: idParams,
        querystring: clicksQuery,
        response: { 200: clicksSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => analytics.clicks(orgOf(request), request.params.id, request.query),
  );
  r.get(
    '/analytics/export',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('exportAnalytics'),
        summary: 'Export raw clicks as CSV or JSON',
        tags,
        description:
          'Raw human clicks, oldest first, as CSV (default; cells neutralized) or JSON. Needs analyticsExport.',
        querystring: exportQuery,
        produces: ['text/csv', 'application/json'],
        response: {
          200: contentResponse('The clicks', 'text/csv', 'application/json'),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query;
      const pages = await analytics.exportPages(orgOf(request), query);
      const head = { configured: analytics.configured, days: query.days };
      const chunks = format === 'json' ? jsonChunks(head, pages) : csvChunks(pages);
      return reply
        .type(format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="linkhop-analytics-${query.days}d.${format}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks) as never);
    },
  );
}

export async function analyticsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  sharedRoutes(app, deps, (name) => name);
}

/**
 * The dashboard's twins (/api/links/{id}/stats, /clicks, /ab-stats, /api/analytics and its export): the same
 * service calls behind the session, with `dashboard`-prefixed operation ids.
 */
export async function dashboardAnalyticsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  sharedRoutes(app, deps, (name) => `dashboard${name[0]?.toUpperCase()}${name.slice(1)}`);
}

const MAX_REPORT_BYTES = 4096;

/** `{token, outcome}` from a JSON or text/plain body; anything else is null. */
function reportOf(body: unknown): { token: unknown; outcome: unknown } | null {
  let value = body;
  if (typeof value === 'string' || Buffer.isBuffer(value)) {
    try {
      value = JSON.parse(String(value));
    } catch {
      return null;
    }
  }
  if (!value || typeof value !== 'object') return null;
  const { token, outcome } = value as Record<string, unknown>;
  return { token, outcome };
}

/**
 * POST /api/public/tap: the escape page's beacon. Register at the root, not in the /api scope: a
 * `navigator.sendBeacon` string body is text/plain and a custom domain's page has its own Origin, which the
 * dashboard's CSRF guard would refuse. Always 204, whatever arrives: its own parsers and error handler.
 */
export async function tapRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_REPORT_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((_error, _request, reply) => reply.code(204).send());
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/public/tap',
    {
      schema: {
        operationId: 'reportTapOutcome',
        summary: "Report an escape tap's outcome",
        tags,
        security: [],
        description:
          'Body `{"token", "outcome": "opened" | "browser" | "broken"}` as JSON or text/plain. Always 204.',
        response: { 204: z.null().describe('No Content') },
      },
    },
    async (request, reply) => {
      const report = reportOf(request.body);
      if (report) await deps.analytics.recordOutcome(report.token, report.outcome).catch(() => false);
      return reply.code(204).send(null);
    },
  );
}
