import { z } from 'zod';

/** The roles a first sign-in may join with: never owner (an owner is made by an owner, by hand). */
export const JOIN_ROLES = ['admin', 'member', 'viewer'] as const;

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/^@/, ''))
  .pipe(
    z
      .string()
      .max(253)
      .regex(
        /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
        'an email domain such as example.com',
      ),
  );

export const ssoConfigBody = z
  .object({
    issuer: z
      .url({ protocol: /^https?$/, error: 'an https URL: the OpenID provider’s issuer identifier' })
      .max(500)
      .describe('the issuer identifier; its /.well-known/openid-configuration must answer'),
    clientId: z.string().trim().min(1).max(255),
    clientSecret: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('write-only; required the first time, kept when omitted afterwards'),
    allowedDomain: domain.describe('people whose verified email is at this domain may sign in and join'),
    defaultRole: z.enum(JOIN_ROLES).default('viewer').describe('the role a first sign-in joins with'),
    requireSso: z.boolean().default(false).describe('refuse password log-in for every member but owners'),
    displayName: z.string().trim().min(1).max(60).describe('shown on the button: “Sign in with …”'),
  })
  .strict();
export type SsoConfigInput = z.infer<typeof ssoConfigBody>;

export const ssoConfigSchema = z
  .object({
    issuer: z.string(),
    clientId: z.string(),
    hasSecret: z.boolean().describe('the client secret is stored (encrypted); it is never returned'),
    allowedDomain: z.string(),
    defaultRole: z.enum(JOIN_ROLES),
    requireSso: z.boolean(),
    displayName: z.string(),
    redirectUri: z.string().describe('register this redirect URI with the provider'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'SsoConfig' });

export const discoverQuery = z.object({ email: z.email('Enter a valid email address').max(254) }).strict();
export const discoverSchema = z.object({
  orgId: z.string(),
  displayName: z.string(),
  startUrl: z.string().describe('open it in the browser to go to the provider'),
});
export const startQuery = z
  .object({
    org: z.uuid(),
    email: z.email().max(254).optional().describe('passed to the provider as login_hint'),
  })
  .strict();
/**
 * The callback's query is the provider's to shape: the parameters OpenID Connect names are documented,
 * any other is let through; the route reads the raw query and the sign-in checks it.
 */
const callbackParam = z.string().max(4096).optional();
export const callbackQuery = z.looseObject({
  code: callbackParam.describe('the authorization code'),
  state: callbackParam.describe('the state sent with the request, checked against the cookie'),
  iss: callbackParam.describe('the issuer, when the provider names itself (RFC 9207)'),
  error: callbackParam.describe("the provider's refusal, instead of a code"),
  error_description: callbackParam,
});
