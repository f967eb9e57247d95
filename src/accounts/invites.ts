import type { Actor } from '../audit/schema.js';
import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Mailer, MailLogger } from '../net/mail.js';
import { isUniqueViolation } from '../store/database.js';
import type { OrgContext, SessionContext } from '../tenancy/context.js';
import type { Role } from '../tenancy/permissions.js';
import { checkOwnerChange } from './members.js';
import type { AccountRepo } from './repo.js';
import { hashPassword, randomToken, sha256Hex } from './secrets.js';
import type { AccountService } from './service.js';
import { composeMail, inertMailText } from './signup-mail.js';

/** How long an invite works. */
export const INVITE_DAYS = 7;

/** Invites an organization may have pending at once (the hourly limit, against relaying, is in src/compose/limits.ts). */
export const MAX_PENDING_INVITES = 100;

export interface InviteServiceDeps {
  repo: AccountRepo;
  accounts: AccountService;
  audit?: AuditLog;
  baseUrl: string;
  /** Without SMTP the link is written on a line of its own in the server log, for the operator. */
  mailer: Mailer;
  /** Invites per organization and hour, so no organization relays mail through the service's address. */
  invitesPerOrg: RateLimiter;
  logger: MailLogger;
  now: () => Date;
  uuid: () => string;
}

const unknownInvite = () =>
  appError('not_found', 'This invite is unknown, used or expired: ask for a new one.');

/** Who sent the invite, as the mail names them: a person by their (proven) email, a key by its name. */
function inviterOf(actor: Actor | undefined): string {
  if (actor?.type === 'user' && actor.id !== 'operator') return actor.label;
  if (actor?.type === 'key') return `an API key of the organization (“${inertMailText(actor.label)}”)`;
  return 'the operator of this linkhop service';
}

/**
 * Invites (issue #20, hardened in #30): an owner or admin names an email and a role; the service mails the
 * link (`/#/invite/{token}`, the token in the fragment so it never reaches a log) to that address only
 * (without SMTP, it writes it on a line of its own in the server log for the operator), never back to the
 * inviter. Holding the token so proves the mailbox: a new person sets a password and gets an account; an
 * existing account joins from its own signed-in session, never with a password typed here (that would be
 * a password check outside the log-in limiter). A token works once, for 7 days.
 */
export function createInviteService(deps: InviteServiceDeps) {
  const members = deps.repo.members;
  const iso = () => deps.now().toISOString();

  function mailInvite(input: { email: string; orgName: string; inviter: string; acceptUrl: string }) {
    const orgName = inertMailText(input.orgName);
    deps.mailer.send({
      kind: 'invite',
      to: input.email,
      message: () =>
        composeMail({
          from: deps.mailer.from,
          to: input.email,
          subject: `You are invited to "${orgName}" on linkhop`,
          lines: [
            `${input.inviter} invited you to join the workspace “${orgName}” on linkhop.`,
            `The link works once, within ${INVITE_DAYS} days. If you did not expect it, ignore this mail.`,
          ],
          action: { label: 'Accept the invite', url: input.acceptUrl },
        }),
      withoutSmtp: () =>
        deps.logger.warn(
          { email: input.email, link: input.acceptUrl },
          'SMTP is not configured: send this invite link to the invited address yourself',
        ),
    });
  }

  /** Within the organization's limits: 100 pending, 20 sent an hour. */
  async function checkInviteLimits(orgId: string): Promise<void> {
    if ((await members.countPendingInvites(orgId, iso())) >= MAX_PENDING_INVITES)
      throw appError(
        'too_many_invites',
        `This organization has ${MAX_PENDING_INVITES} pending invites; revoke some before sending more`,
      );
    const rate = await deps.invitesPerOrg.hit(`org:${orgId}`);
    if (!rate.allowed)
      throw appError(
        'too_many_invites',
        'This organization has sent too many invites this hour; try again later',
        {
          retryAfter: rate.resetSeconds,
        },
      );
  }

  /**
   * Who joins: a new person gets an account (the token came by mail to the address, so it is proven); an
   * existing one only from their own session. Answers 401 otherwise, never checking a password here.
   */
  async function joinAs(invite: { email: string }, password: string | undefined, session?: SessionContext) {
    const user = await deps.repo.findUserByEmail(invite.email);
    if (user) {
      if (session?.user.id === user.id) return { userId: user.id, passwordHash: null };
      throw appError(
        'unauthenticated',
        `Log in as ${invite.email} first, then open the invite link again (the invite joins your signed-in account).`,
      );
    }
    if (!password || password.length < 8)
      throw appError('invalid_body', 'password: choose one of at least 8 characters');
    return { userId: null, passwordHash: await hashPassword(password) };
  }

  return {
    async create(ctx: OrgContext, input: { email: string; role: Role }) {
      checkOwnerChange(ctx.actor, input.role === 'owner');
      const org = await deps.accounts.getOrganization(ctx.orgId);
      const existing = await deps.repo.findUserByEmail(input.email);
      if (existing && (await members.listMembers(ctx.orgId)).some((row) => row.userId === existing.id))
        throw appError('already_member');
      await checkInviteLimits(ctx.orgId);
      const token = randomToken();
      const now = deps.now();
      const invite = {
        id: deps.uuid(),
        orgId: ctx.orgId,
        email: input.email,
        role: input.role,
        invitedBy: ctx.actor?.id ?? null,
        expiresAt: new Date(now.getTime() + INVITE_DAYS * 86_400_000).toISOString(),
        createdAt: now.toISOString(),
      };
      await members.transaction(async (trx) => {
        await members.insertInvite(trx, { ...invite, tokenHash: sha256Hex(token) });
        await deps.audit?.record(trx, ctx, {
          action: 'invite.created',
          target: { type: 'invite', id: invite.id },
          changes: { email: invite.email, role: { from: null, to: invite.role } },
        });
      });
      const acceptUrl = `${deps.baseUrl}/#/invite/${token}`;
      mailInvite({ email: invite.email, orgName: org.name, inviter: inviterOf(ctx.actor), acceptUrl });
      return {
        id: invite.id,
        email: invite.email,
        role: invite.role,
        expiresAt: invite.expiresAt,
        delivery: deps.mailer.delivery,
      };
    },
    list: (ctx: OrgContext) => members.listInvites(ctx.orgId, iso()),

    async revoke(ctx: OrgContext, id: string): Promise<void> {
      await members.transaction(async (trx) => {
        const invite = await members.deleteInvite(trx, ctx.orgId, id);
        if (!invite) throw appError('not_found', 'No such invite');
        await deps.audit?.record(trx, ctx, {
          action: 'invite.revoked',
          target: { type: 'invite', id },
          changes: { email: invite.email },
        });
      });
    },

    /**
     * What the accept page shows before the person decides. Nothing about whether the email has an
     * account (that is the log-in's secret): the page offers both a new password and "log in first".
     */
    async inspect(token: string) {
      const invite = await members.findInvite(sha256Hex(token), iso());
      if (!invite) throw unknownInvite();
      const { orgName, email, role, expiresAt } = invite;
      return { orgName, email, role, expiresAt };
    },

    /**
     * Joins the organization, once; answers a session token working in it. The claim (a conditional
     * delete) and the membership share one transaction, so of two accepts of one token exactly one joins
     * and the other finds the invite gone (404). A new person accepting two organizations' invites at once
     * races on the users' unique email instead: the loser's transaction rolls back whole (its invite stays
     * unclaimed) and it tries once more, now as the existing person, who must then log in first (401).
     */
    async accept(token: string, password: string | undefined, session?: SessionContext) {
      try {
        return await acceptOnce(token, password, session);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return acceptOnce(token, password, session);
      }
    },
  };

  async function acceptOnce(token: string, password: string | undefined, session?: SessionContext) {
    const tokenHash = sha256Hex(token);
    const found = await members.findInvite(tokenHash, iso());
    if (!found) throw unknownInvite();
    const who = await joinAs(found, password, session);
    const userId = who.userId ?? deps.uuid();
    await members.transaction(async (trx) => {
      const invite = await members.claimInvite(trx, tokenHash, iso());
      if (!invite) throw unknownInvite();
      const createdAt = iso();
      if (who.passwordHash !== null) {
        const user = {
          id: userId,
          orgId: invite.orgId,
          email: invite.email,
          passwordHash: who.passwordHash,
        };
        await deps.repo.insertUser({ ...user, createdAt, role: invite.role }, trx);
      } else if (!(await members.listMembers(invite.orgId, trx)).some((row) => row.userId === userId)) {
        await members.insertMembership(trx, { userId, orgId: invite.orgId, role: invite.role, createdAt });
      }
      const actor = { type: 'user' as const, id: userId, label: invite.email };
      await deps.audit?.record(
        trx,
        { orgId: invite.orgId, actor },
        {
          action: 'invite.accepted',
          target: { type: 'member', id: userId },
          changes: { email: invite.email, role: { from: null, to: invite.role } },
        },
      );
    });
    return { token: await deps.accounts.openSession(userId, found.orgId), orgId: found.orgId };
  }
}

export type InviteService = ReturnType<typeof createInviteService>;
