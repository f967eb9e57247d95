import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ESCAPE_STRATEGIES } from '../core/escape/index.js';
import { errorResponses } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { AnalyticsService } from './service.js';

/** GET /analytics/escape: taps and outcomes per escape cell (issue #18), for /v1 and the dashboard's twin. */

const count = z.number().describe('sampled estimate');

const cellSchema = z.object({
  inApp: z.string().nullable().describe('the in-app browser (instagram, tiktok, ...); null for a browser'),
  os: z.enum(['ios', 'android']),
  platform: z.string().describe("the destination's platform key"),
  strategy: z.enum(ESCAPE_STRATEGIES).describe('the escape strategy the page used'),
  taps: count.describe('escape pages served'),
  opened: count,
  browser: count,
  broken: count,
  openRate: z.number().nullable().describe('opened / taps, four decimals; null when the cell has no taps'),
});

const escapeCellsSchema = z
  .object({
    configured: z.boolean(),
    sampled: z.literal(true),
    days: z.number().int(),
    cells: z.array(cellSchema),
    upgrade: z.string().optional().describe('set when the plan cannot see the data'),
  })
  .meta({
    id: 'EscapeCells',
    description: 'Taps and outcomes per in-app browser × OS × platform × strategy.',
  });

/** Registers the route on a scope whose `analyticsQuery` is the shared `days/linkId/folderId/tag` query. */
export function escapeCellRoutes(
  app: FastifyInstance,
  analytics: AnalyticsService,
  op: (name: string) => string,
  analyticsQuery: z.ZodType<{
    days: number;
    linkId?: string | undefined;
    folderId?: string | undefined;
    tag?: string | undefined;
  }>,
): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/analytics/escape',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('getEscapeCells'),
        summary: 'Get app-open outcomes per in-app browser, OS, platform and strategy',
        tags: ['analytics'],
        description:
          'Whole UTC days ending today, most taps first. Below hero: `cells` is empty and `upgrade` is set.',
        querystring: analyticsQuery,
        response: { 200: escapeCellsSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => analytics.escapeCells(orgOf(request), request.query),
  );
}
