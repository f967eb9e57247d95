import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appError } from '../errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { errorBodies, errorBody } from '../http/schemas.js';
import { clearedSessionCookie, sessionCookie, sessionTokenOf } from '../http/session-auth.js';
import type { SessionContext } from '../tenancy/context.js';
import { ROLES } from '../tenancy/permissions.js';
import { FEATURES, featuresOf, LINK_CAPS, PLAN_NAMES, TIERS } from '../tenancy/plans.js';
import type { PasswordAttempts } from './password-attempts.js';
import type { AccountService } from './service.js';
import type { SignupService } from './signup.js';

const email = z
  .email('Enter a valid email address')
  .max(254)
  .transform((value) => value.toLowerCase());
const password = z.string().min(8, 'Passwords have at least 8 characters').max(200);
const signupBody = z.object({ email, password, orgName: z.string().trim().min(1).max(100) }).strict();
const confirmBody = z.object({ token: z.string().min(1).max(200) }).strict();
const delivery = z
  .enum(['mail', 'server_log'])
  .describe('where the confirmation link went: mailed, or (no SMTP configured) written to the server log');
const signupAnswer = z.object({ status: z.literal('confirmation_sent'), message: z.string(), delivery });
const loginBody = z.object({ email: z.string().max(254), password: z.string().max(200) }).strict();

const featureFlags = z.object(Object.fromEntries(FEATURES.map((feature) => [feature, z.boolean()])));
const signupInfo = z.object({
  tier: z.enum(TIERS).describe('the plan a sign-up made now starts on'),
  planName: z.string(),
  firstAccount: z
    .boolean()
    .describe("true while the instance has no organization: that sign-up is the operator's, on Legend"),
  linkCap: z.number().int().describe('live links the plan keeps'),
  features: featureFlags,
  delivery,
});

const orgSchema = z.object({ id: z.string(), name: z.string(), tier: z.enum(TIERS) });
export const sessionSchema = z.object({
  user: z.object({ id: z.string(), email: z.string() }),
  org: orgSchema,
  role: z.enum(ROLES).describe('your role in `org`'),
  orgs: z.array(orgSchema.extend({ role: z.enum(ROLES) })).describe('every organization you belong to'),
  features: featureFlags,
});
const errors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  429: errorBody,
};

export interface DashboardAccountDeps {
  accounts: AccountService;
  signup: SignupService;
  /** Sign-up requests per client address: each one costs a scrypt and may send a mail. */
  signupAttempts: RateLimiter;
  secureCookies: boolean;
  /**
   * Password checks per client address and failures per account: the log-in's limits, shared by every
   * door that checks a password (password change, account deletion).
   */
  passwordAttempts: PasswordAttempts;
  /** Invite accepts per client address. */
  inviteAccepts: RateLimiter;
  /** API keys created per organization, so minting and revoking cannot churn without bound. */
  keyCreations: RateLimiter;
}

/** The dashboard's view of a session: the person, where they work now, their role, and the rest. */
export function presentSession(session: SessionContext) {
  const { user, org, role, orgs, features } = session;
  return { user, org, role, orgs, features };
}

/** Sign-up, log-in, log-out and the session: the dashboard's /api/auth and /api/session. */
export async function dashboardAccountRoutes(
  app: FastifyInstance,
  deps: DashboardAccountDeps,
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, secureCookies } = deps;
  const sessionOf = async (token: string) => {
    const session = await accounts.session(token);
    if (!session) throw appError('unauthenticated');
    return presentSession(session);
  };
  const config = { permission: 'public' } as const;

  // What the sign-up page promises: the plan a sign-up made now would really get, and where its link goes.
  r.get(
    '/auth/signup',
    {
      config,
      schema: {
        operationId: 'getSignupInfo',
        summary: 'What a sign-up made now would get',
        tags: ['dashboard'],
        description:
          "The plan a new workspace starts on (Legend for an instance's first account, its operator's; " +
          'SIGNUP_TIER after), its features and link cap, and whether the confirmation link is mailed or ' +
          'written to the server log (no SMTP).',
        response: { 200: signupInfo, ...errors },
      },
    },
    async () => {
      const { tier, firstAccount } = await accounts.signupPlan();
      return {
        tier,
        planName: PLAN_NAMES[tier],
        firstAccount,
        linkCap: LINK_CAPS[tier],
        features: featuresOf(tier),
        delivery: deps.signup.delivery,
      };
    },
  );

  // One answer whether or not the email has an account (issue #17): the mailbox tells its owner which.
  r.post(
    '/auth/signup',
    {
      config,
      schema: {
        operationId: 'signup',
        summary: 'Sign up (a confirmation link is mailed)',
        tags: ['dashboard'],
        body: signupBody,
        response: { 202: signupAnswer, ...errors },
      },
    },
    async (request, reply) => {
      const attempt = await deps.signupAttempts.hit(`signup:${request.ip}`);
      if (!attempt.allowed)
        throw appError('rate_limited', 'Too many sign-ups from this address', {
          retryAfter: attempt.resetSeconds,
        });
      await deps.signup.request(request.body);
      const { email } = request.body;
      return reply.code(202).send({
        status: 'confirmation_sent' as const,
        message:
          deps.signup.delivery === 'mail'
            ? `We sent a link to ${email}. Open it within 24 hours to finish creating your workspace.`
            : `This server has no SMTP configured, so the confirmation link for ${email} is in the server's log. ` +
              'Open it within 24 hours to finish creating your workspace.',
        delivery: deps.signup.delivery,
      });
    },
  );

  r.post(
    '/auth/signup/confirm',
    {
      config,
      schema: {
        operationId: 'confirmSignup',
        summary: 'Confirm a sign-up and log in',
        tags: ['dashboard'],
        body: confirmBody,
        response: { 201: sessionSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { token } = await deps.signup.confirm(request.body.token);
      reply.header('set-cookie', sessionCookie(token, secureCookies));
      return reply.code(201).send(await sessionOf(token));
    },
  );

  r.post(
    '/auth/login',
    {
      config,
      schema: {
        operationId: 'login',
        summary: 'Log in',
        tags: ['dashboard'],
        body: loginBody,
        response: { 200: sessionSchema, ...errors },
      },
    },
    async (request, reply) => {
      const token = await deps.passwordAttempts.guard(request.ip, request.body.email, () =>
        accounts.login(request.body),
      );
      reply.header('set-cookie', sessionCookie(token, secureCookies));
      return sessionOf(token);
    },
  );

  r.post(
    '/auth/logout',
    {
      config,
      schema: {
        operationId: 'logout',
        summary: 'Log out',
        tags: ['dashboard'],
        response: { 200: z.object({ ok: z.literal(true) }), ...errorBodies(403) },
      },
    },
    async (request, reply) => {
      const token = sessionTokenOf(request);
      if (token) await accounts.logout(token);
      reply.header('set-cookie', clearedSessionCookie(secureCookies));
      return { ok: true as const };
    },
  );

  r.get(
    '/session',
    {
      config,
      schema: {
        operationId: 'getSession',
        summary: 'Get the current session',
        tags: ['dashboard'],
        response: { 200: sessionSchema, ...errors },
      },
    },
    async (request) => sessionOf(sessionTokenOf(request) ?? ''),
  );
}
