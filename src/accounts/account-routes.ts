import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appError } from '../errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { errorResponses } from '../http/schemas.js';
import { clearedSessionCookie, sessionCookie, sessionOf, sessionTokenOf } from '../http/session-auth.js';
import { presentSession, sessionSchema } from './dashboard-routes.js';
import type { EraseService } from './erase.js';
import type { InviteService } from './invites.js';
import { acceptInviteBody, emailField, inviteDetailsSchema, inviteTokenBody } from './member-schema.js';
import type { MemberService } from './members.js';
import type { PasswordAttempts } from './password-attempts.js';
import type { PasswordService } from './passwords.js';
import { RESET_LINK_MINUTES } from './passwords.js';
import type { AccountService } from './service.js';

const newPassword = z.string().min(8, 'Passwords have at least 8 characters').max(200);
const ok = z.object({ ok: z.literal(true) });
const tags = ['dashboard'];

export interface AccountRouteDeps {
  accounts: AccountService;
  passwords: PasswordService;
  erase: EraseService;
  invites: InviteService;
  members: MemberService;
  secureCookies: boolean;
  /** Reset requests per client address: each may send a mail. */
  resetAttempts: RateLimiter;
  /** Invite accepts per client address: a new person's costs a scrypt. */
  inviteAccepts: RateLimiter;
  /** The log-in's limits, which the password change and account deletion count toward too. */
  passwordAttempts: PasswordAttempts;
}

/** Outside the session: password reset by email and the invite accept page. */
export async function publicAccountRoutes(app: FastifyInstance, deps: AccountRouteDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'public' } as const;

  r.post(
    '/auth/password-reset',
    {
      config,
      schema: {
        operationId: 'requestPasswordReset',
        summary: 'Mail a password reset link',
        tags,
        description:
          'Mails a one-use link (1 hour) when the email has an account; the same answer either way.',
        body: z.object({ email: emailField }).strict(),
        response: {
          202: z.object({ status: z.literal('reset_sent'), message: z.string() }),
          ...errorResponses(400, 503),
        },
      },
    },
    async (request, reply) => {
      const attempt = await deps.resetAttempts.hit(`reset:${request.ip}`);
      if (!attempt.allowed)
        throw appError('rate_limited', 'Too many reset requests from this address', {
          retryAfter: attempt.resetSeconds,
        });
      await deps.passwords.requestReset(request.body.email);
      return reply.code(202).send({
        status: 'reset_sent' as const,
        message: `If ${request.body.email} has an account, a link is on its way; it works once, within ${RESET_LINK_MINUTES} minutes.`,
      });
    },
  );

  r.post(
    '/auth/password-reset/confirm',
    {
      config,
      schema: {
        operationId: 'confirmPasswordReset',
        summary: 'Set a new password with a reset link',
        tags,
        body: z.object({ token: z.string().min(1).max(200), password: newPassword }).strict(),
        response: { 200: ok, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      await deps.passwords.confirmReset(request.body.token, request.body.password);
      return { ok: true as const };
    },
  );

  r.post(
    '/invites/inspect',
    {
      config,
      schema: {
        operationId: 'inspectInvite',
        summary: 'Look at an invite before accepting it',
        tags,
        body: inviteTokenBody,
        response: { 200: inviteDetailsSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => deps.invites.inspect(request.body.token),
  );

  r.post(
    '/invites/accept',
    {
      config,
      schema: {
        operationId: 'acceptInvite',
        summary: 'Accept an invite',
        tags,
        description:
          'Joins the organization and logs in there. A new person sets a password (the mailed token proves ' +
          'the address); an existing account accepts from its own signed-in session (401 otherwise: log ' +
          'in first). No password is ever checked here.',
        body: acceptInviteBody,
        response: { 200: sessionSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const attempt = await deps.inviteAccepts.hit(`invite-accept:${request.ip}`);
      if (!attempt.allowed)
        throw appError('rate_limited', 'Too many invite accepts from this address', {
          retryAfter: attempt.resetSeconds,
        });
      const current = (await deps.accounts.session(sessionTokenOf(request))) ?? undefined;
      const { token } = await deps.invites.accept(request.body.token, request.body.password, current);
      const session = await deps.accounts.session(token);
      if (!session) throw appError('unauthenticated');
      reply.header('set-cookie', sessionCookie(token, deps.secureCookies));
      return presentSession(session);
    },
  );
}

/** Behind the session: the org switcher, password change, and deleting one's account. */
export async function sessionAccountRoutes(app: FastifyInstance, deps: AccountRouteDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { permission: 'authenticated' } as const;

  r.post(
    '/session/org',
    {
      config,
      schema: {
        operationId: 'switchOrganization',
        summary: "Switch the session's organization",
        tags,
        body: z.object({ orgId: z.string().min(1).max(64) }).strict(),
        response: { 200: sessionSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      await deps.accounts.switchOrganization(session, request.body.orgId);
      const next = await deps.accounts.session(sessionTokenOf(request));
      if (!next) throw appError('unauthenticated');
      return presentSession(next);
    },
  );

  r.post(
    '/account/password',
    {
      config,
      schema: {
        operationId: 'changePassword',
        summary: 'Change your password',
        tags,
        description: 'Ends every other session of yours.',
        body: z.object({ currentPassword: z.string().max(200), newPassword }).strict(),
        response: { 200: ok, ...errorResponses(400) },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      await deps.passwordAttempts.guard(request.ip, session.user.email, () =>
        deps.passwords.change(session, request.body),
      );
      return { ok: true as const };
    },
  );

  r.post(
    '/account/leave',
    {
      config,
      schema: {
        operationId: 'leaveOrganization',
        summary: 'Leave the organization you are working in',
        tags,
        description:
          'Any role may leave. The last owner cannot (409 last_owner), nor can anyone leave their only ' +
          'organization (409 only_organization: delete the account instead). Answers the session, now in ' +
          'another of your organizations.',
        response: { 200: sessionSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      await deps.members.leave(sessionOf(request));
      // The session falls back to the person's first remaining organization.
      const next = await deps.accounts.session(sessionTokenOf(request));
      if (!next) throw appError('unauthenticated');
      return presentSession(next);
    },
  );

  r.post(
    '/account/delete',
    {
      config,
      schema: {
        operationId: 'deleteAccount',
        summary: 'Delete your account',
        tags,
        description:
          'Deletes your account. Organizations where you are the last owner are deleted too: their members ' +
          'who belong nowhere else, keys, audience, analytics, pages and automations are erased; of each ' +
          'link only slug, hostname, destination and its gates (password, expiry) stay, so it keeps ' +
          'redirecting and nothing becomes more public.',
        body: z.object({ currentPassword: z.string().max(200) }).strict(),
        response: {
          200: z.object({ deleted: z.literal(true), deletedOrganizations: z.array(z.string()) }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const result = await deps.passwordAttempts.guard(request.ip, session.user.email, () =>
        deps.erase.deleteAccount(session, request.body.currentPassword),
      );
      reply.header('set-cookie', clearedSessionCookie(deps.secureCookies));
      return { deleted: true as const, ...result };
    },
  );
}
