import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { SocialAccountService } from './accounts.js';
import type { AutomationService } from './automations.js';
import { triggerSchema } from './trigger.js';

/**
 * Dashboard routes of hosted-service.md 4.5 (`socialRoutes`, under the session-authenticated /api scope).
 * The webhook and the cron sweep are in webhook-routes.ts.
 */

const tags = ['social'];
const accountSchema = z
  .object({
    id: z.uuid(),
    provider: z.literal('instagram'),
    providerUserId: z.string().describe('provider id, a string: it overflows JavaScript numbers'),
    username: z.string(),
    status: z.enum(['active', 'needs_reconnect', 'revoked']),
    statusMessage: z.string().nullable(),
    connectedAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'SocialAccount' });
const ruleSchema = z
  .object({
    id: z.uuid(),
    accountId: z.uuid(),
    linkId: z.string(),
    dmText: z.string(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
    trigger: triggerSchema,
  })
  .meta({ id: 'DmAutomation' });
const firingSchema = z.object({
  id: z.uuid(),
  status: z.enum(['queued', 'sent', 'failed', 'skipped']),
  error: z.string().nullable().describe('machine token, e.g. outside_24h_window'),
  reason: z.string().nullable().describe('plain-language text, or null'),
  sourceId: z.string(),
  createdAt: z.string(),
});
const statsSchema = z.object({
  sent: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  recipients: z.number().int(),
  link: z
    .object({
      shortUrl: z.string(),
      clicks: z.number(),
      opened: z.number(),
      appOpenRate: z.number().nullable(),
    })
    .nullable(),
});
// The trigger is validated and cleaned by the service (so a bad one is 400 `bad_trigger`, not a generic
// validation error); its cleaned shape is documented here.
const triggerInput = z
  .unknown()
  .describe(
    'Cleaned on the server; unknown type or mode answers 400 bad_trigger. ' +
      '{type: "comment" | "message", match: {mode: "any" | "exact", keywords: string[] (max 20, each max 64)}, ' +
      'mediaId: string | null}. Keywords are trimmed and deduplicated case-insensitively; none means everyone.',
  );
const ruleBody = z
  .object({
    accountId: z.string().max(64).optional(),
    linkId: z.string().max(64).optional(),
    dmText: z.string().max(900).optional().describe('no links: the DM carries the rule’s link'),
    trigger: triggerInput,
    enabled: z.boolean().optional(),
  })
  .strict();
const deleted = z.object({ deleted: z.literal(true) });

export async function socialRoutes(
  app: FastifyInstance,
  deps: { accounts: SocialAccountService; automations: AutomationService },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, automations } = deps;
  const meta = z.object({
    appConfigured: z.boolean(),
    appMode: z.enum(['development', 'live']),
    authUrl: z.string().nullable(),
  });
  r.get(
    '/social/meta',
    {
      config: { permission: 'authenticated' },
      schema: {
        operationId: 'socialMeta',
        summary: 'Get the social integration settings',
        tags,
        response: { 200: meta, 401: errorBody },
      },
    },
    async (request) => accounts.meta(orgOf(request)),
  );
  r.get(
    '/social',
    {
      config: { permission: 'automations:read' },
      schema: {
        operationId: 'listSocialAccounts',
        summary: 'List connected social accounts',
        tags,
        response: { 200: z.object({ accounts: z.array(accountSchema) }), 401: errorBody },
      },
    },
    async (request) => ({ accounts: await accounts.list(orgOf(request)) }),
  );
  r.post(
    '/social/connect',
    {
      config: { permission: 'automations:write' },
      schema: {
        operationId: 'connectSocialAccount',
        summary: 'Connect a social account',
        tags,
        body: z.object({ code: z.string().max(4096).optional(), state: z.string().max(512).optional() }),
        response: { 201: accountSchema, ...errorResponses(400, 403, 409, 502, 503) },
      },
    },
    async (request, reply) => reply.code(201).send(await accounts.connect(orgOf(request), request.body)),
  );
  r.delete(
    '/social/accounts/:id',
    {
      config: { permission: 'automations:write' },
      schema: {
        operationId: 'disconnectSocialAccount',
        summary: 'Disconnect a social account',
        tags,
        params: idParams,
        response: { 200: deleted, ...errorResponses(404) },
      },
    },
    async (request) => accounts.disconnect(orgOf(request), request.params.id),
  );
  r.post(
    '/social/automations',
    {
      config: { permission: 'automations:write' },
      schema: {
        operationId: 'createDmAutomation',
        summary: 'Create a comment-to-DM automation',
        tags,
        body: ruleBody,
        response: { 201: ruleSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await automations.create(orgOf(request), request.body)),
  );
  r.get(
    '/social/automations',
    {
      config: { permission: 'automations:read' },
      schema: {
        operationId: 'listDmAutomations',
        summary: 'List comment-to-DM automations',
        tags,
        response: { 200: z.object({ automations: z.array(ruleSchema) }), 401: errorBody },
      },
    },
    async (request) => ({ automations: await automations.list(orgOf(request)) }),
  );
  r.patch(
    '/social/automations/:id',
    {
      config: { permission: 'automations:write' },
      schema: {
        operationId: 'updateDmAutomation',
        summary: 'Update a comment-to-DM automation',
        tags,
        params: idParams,
        body: ruleBody.partial(),
        response: { 200: ruleSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => automations.update(orgOf(request), request.params.id, request.body),
  );
  r.delete(
    '/social/automations/:id',
    {
      config: { permission: 'automations:write' },
      schema: {
        operationId: 'deleteDmAutomation',
        summary: 'Delete a comment-to-DM automation',
        tags,
        params: idParams,
        response: { 200: deleted, ...errorResponses(404) },
      },
    },
    async (request) => automations.remove(orgOf(request), request.params.id),
  );
  r.get(
    '/social/automations/:id/stats',
    {
      config: { permission: 'automations:read' },
      schema: {
        operationId: 'dmAutomationStats',
        summary: "Get an automation's stats",
        tags,
        params: idParams,
        response: { 200: statsSchema, ...errorResponses(404) },
      },
    },
    async (request) => automations.stats(orgOf(request), request.params.id),
  );
  r.get(
    '/social/automations/:id/events',
    {
      config: { permission: 'automations:read' },
      schema: {
        operationId: 'dmAutomationEvents',
        summary: "List an automation's recent events",
        tags,
        params: idParams,
        response: { 200: z.object({ events: z.array(firingSchema) }), ...errorResponses(404) },
      },
    },
    async (request) => ({ events: await automations.events(orgOf(request), request.params.id) }),
  );
}
