import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../http/schemas.js';
import { orgOf, V1_RATE_LIMIT } from '../http/v1-auth.js';
import { FEATURES, TIERS } from '../tenancy/plans.js';

const featuresSchema = z
  .object(Object.fromEntries(FEATURES.map((feature) => [feature, z.boolean()])))
  .meta({ id: 'Features' });

const meSchema = z.object({
  orgId: z.uuid(),
  tier: z.enum(TIERS),
  features: featuresSchema,
  rateLimit: z.object({ limit: z.number().int(), windowSeconds: z.number().int() }),
});

/** GET /v1/me: tests the key. */
export async function meRoutes(app: FastifyInstance): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/me',
    {
      config: { permission: 'authenticated' },
      schema: {
        operationId: 'getMe',
        summary: "Get the key's organization and plan",
        tags: ['account'],
        response: { 200: meSchema, ...errorResponses() },
      },
    },
    async (request) => {
      const org = orgOf(request);
      return { orgId: org.orgId, tier: org.tier, features: org.features, rateLimit: { ...V1_RATE_LIMIT } };
    },
  );
}
