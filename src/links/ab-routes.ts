import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { AbTests } from './ab.js';
import { abReadoutQuery, abReadoutSchema, promoteBody, promoteResult } from './ab-schema.js';

/** /v1/links/{id}/ab (and the dashboard's /api twin): the A/B readout and the promote. */
export async function abTestRoutes(
  app: FastifyInstance,
  deps: { abTests: AbTests; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { abTests } = deps;
  const op = operationIds(deps.operationPrefix);

  r.get(
    '/links/:id/ab',
    {
      config: { permission: 'analytics:read' },
      schema: {
        operationId: op('getLinkAbTest'),
        summary: "Read a link's A/B test",
        tags: ['links'],
        description:
          'The running test, else the latest concluded one (`?test=` reads an earlier concluded test): per ' +
          'variant, human visits, app-open outcomes, the open rate and the probability of being best. ' +
          'Needs abTesting. 404 `no_ab_test` when the link has never had one.',
        params: idParams,
        querystring: abReadoutQuery,
        response: { 200: abReadoutSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => abTests.readout(orgOf(request), request.params.id, request.query.test),
  );

  r.post(
    '/links/:id/ab/promote',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('promoteLinkAbVariant'),
        summary: 'Promote an A/B variant',
        tags: ['links'],
        description:
          'Makes the variant the link’s destination and ends the test (its readout stays readable). ' +
          'Answers the link and the concluded test. 400 `unknown_variant`, 409 `ab_not_running`.',
        params: idParams,
        body: promoteBody,
        response: { 200: promoteResult, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => abTests.promote(orgOf(request), request.params.id, request.body.variant),
  );
}
