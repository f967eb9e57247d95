import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import { ssoConfigBody, ssoConfigSchema } from './schema.js';
import type { SsoSettings } from './settings.js';

/** /v1/org/sso and its dashboard twin /api/org/sso: the organization's identity provider, owners only. */
export async function ssoConfigRoutes(
  app: FastifyInstance,
  deps: { settings: SsoSettings; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { settings } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['sso'];

  r.get(
    '/org/sso',
    {
      config: { permission: 'sso:read' },
      schema: {
        operationId: op('getSsoConfig'),
        summary: "Get the organization's single sign-on",
        tags,
        description: 'The client secret is never returned: `hasSecret` says one is stored.',
        response: { 200: ssoConfigSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => settings.get(orgOf(request)),
  );

  r.put(
    '/org/sso',
    {
      config: { permission: 'sso:write' },
      schema: {
        operationId: op('putSsoConfig'),
        summary: "Set the organization's single sign-on",
        tags,
        description:
          'Checks the issuer answers OpenID Connect discovery (through the SSRF guard) before saving; the ' +
          'client secret is stored encrypted and kept when omitted. One organization per email domain ' +
          '(409 sso_domain_taken).',
        body: ssoConfigBody,
        response: { 200: ssoConfigSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request) => settings.put(orgOf(request), request.body),
  );

  r.delete(
    '/org/sso',
    {
      config: { permission: 'sso:write' },
      schema: {
        operationId: op('deleteSsoConfig'),
        summary: "Remove the organization's single sign-on",
        tags,
        description: 'Members who joined through it keep their accounts; password log-in works again.',
        response: { 200: z.object({ deleted: z.literal(true) }), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      await settings.remove(orgOf(request));
      return { deleted: true as const };
    },
  );
}
