import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appError, featureError } from '../errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { SCOPES } from '../tenancy/permissions.js';
import type { ListedApiKey } from './key-repo.js';
import { NO_SCOPES_MESSAGE } from './keys.js';
import type { AccountService } from './service.js';

const scopeList = z
  .array(z.enum(SCOPES, { error: `scopes: each is one of ${SCOPES.join(', ')}` }))
  .min(1, NO_SCOPES_MESSAGE)
  .max(SCOPES.length);

export const createKeyBody = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(100, 'name has at most 100 characters'),
    scopes: scopeList
      .optional()
      .describe('what the key may do; `all` (the default) is everything the API offers'),
    organizationKey: z
      .boolean()
      .optional()
      .describe(
        "owners only: the organization's own key, which survives its maker's removal (a person's key is revoked when they leave, are removed, or drop below admin)",
      ),
  })
  .strict();

const keySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('the first 8 characters, to recognise the key'),
    scopes: z.array(z.enum(SCOPES)),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable().describe('to the minute'),
    revokedAt: z.string().nullable(),
    createdBy: z
      .object({ userId: z.string(), email: z.string().nullable() })
      .nullable()
      .describe(
        "the person who made it (a key made with a key: that key's maker); null for the organization's own",
      ),
    organizationKey: z.boolean().describe("the organization's own: it survives any one person's removal"),
  })
  .meta({ id: 'ApiKey' });

/** A key as the API shows it: who made it, never its hash or its organization. */
function presentKey(key: ListedApiKey) {
  const { orgId: _orgId, createdBy, createdByEmail, orgOwned, ...rest } = key;
  return {
    ...rest,
    createdBy: createdBy === null ? null : { userId: createdBy, email: createdByEmail },
    organizationKey: orgOwned,
  };
}

const createdKeySchema = keySchema.extend({ apiKey: z.string(), note: z.string() });

export interface KeyRouteDeps {
  accounts: AccountService;
  /** API keys created per organization, so minting and revoking cannot churn without bound. */
  keyCreations: RateLimiter;
  operationPrefix?: string;
}

/** /v1/keys and the dashboard's /api/keys: named, scoped keys, made and revoked by owners and admins. */
export async function keyRoutes(app: FastifyInstance, deps: KeyRouteDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { accounts } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['keys'];

  r.get(
    '/keys',
    {
      config: { permission: 'keys:write' },
      schema: {
        operationId: op('listKeys'),
        summary: 'List API keys',
        tags,
        response: { 200: z.object({ keys: z.array(keySchema) }), ...errorResponses(403) },
      },
    },
    async (request) => ({
      keys: (await accounts.listApiKeys(orgOf(request).orgId)).map(presentKey),
    }),
  );

  r.post(
    '/keys',
    {
      config: { permission: 'keys:write' },
      schema: {
        operationId: op('createKey'),
        summary: 'Create an API key (shown once)',
        tags,
        description: 'The key is in the answer once and never again.',
        body: createKeyBody,
        response: { 201: createdKeySchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => {
      const org = orgOf(request);
      if (!org.features.api) throw featureError('api');
      const rate = await deps.keyCreations.hit(`org:${org.orgId}`);
      if (!rate.allowed) {
        throw appError('rate_limited', 'Too many API keys created; try again later', {
          retryAfter: rate.resetSeconds,
        });
      }
      const { apiKey, ...key } = await accounts.createApiKey(org, {
        name: request.body.name,
        scopes: request.body.scopes ?? ['all'],
        organizationKey: request.body.organizationKey,
      });
      const maker = key.createdBy === null ? null : await accounts.findUserEmail(key.createdBy);
      return reply.code(201).send({
        ...presentKey({ ...key, orgId: org.orgId, lastUsedAt: null, revokedAt: null, createdByEmail: maker }),
        apiKey,
        note: 'Copy this key now: it is shown once and never again.',
      });
    },
  );

  r.delete(
    '/keys/:id',
    {
      config: { permission: 'keys:write' },
      schema: {
        operationId: op('revokeKey'),
        summary: 'Revoke an API key',
        tags,
        params: idParams,
        response: { 200: z.object({ deleted: z.literal(true) }), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      if (!(await accounts.revokeApiKey(request.params.id, orgOf(request))))
        throw appError('not_found', 'No such key');
      return { deleted: true as const };
    },
  );
}
