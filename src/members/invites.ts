import type { Role } from '../accounts/permissions.js';
import type { AccountRepo } from '../accounts/repo.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from '../accounts/secrets.js';
import type { AccountService, OrgContext, SessionContext } from '../accounts/service.js';
import type { SignupLogger } from '../accounts/signup.js';
import { composeMail } from '../accounts/signup-mail.js';
import type { AuditLog } from '../audit/service.js';
import type { MailTransport } from '../broadcasts/worker.js';
import { appError } from '../errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { isUniqueViolation } from '../store/database.js';
import { checkOwnerChange } from './service.js';

/** How long an invite works. */
export const INVITE_DAYS = 7;

export interface InviteServiceDeps {
  repo: AccountRepo;
  accounts: AccountService;
  audit?: AuditLog;
  baseUrl: string;
  from: string;
  /** SMTP_URL's transport; null writes the link to the log (the API answer carries it too). */
  transport: MailTransport | null;
  /** Mails per address, so nobody can make the service mail-bomb someone's inbox. */
  mailsPerEmail: RateLimiter;
  logger: SignupLogger;
  now: () => Date;
  uuid: () => string;
}

const unknownInvite = () =>
  appError('not_found', 'This invite is unknown, used or expired: ask for a new one.');

/**
 * Invites (issue #20): an owner or admin names an email and a role; the person opens the mailed link
 * (`/#/invite/{token}`, the token in the fragment so it never reaches a log), and either sets a password
 * (new to linkhop) or proves they are the existing account, and joins. A token works once, for 7 days.
 */
export function createInviteService(deps: InviteServiceDeps) {
  const members = deps.repo.members;
  const iso = () => deps.now().toISOString();

  function mailInvite(email: string, orgName: string, acceptUrl: string): void {
    void (async () => {
      if (!(await deps.mailsPerEmail.hit(`invite-mail:${email}`)).allowed) {
        deps.logger.warn({ email }, 'invite mail not sent: too many for this address this hour');
        return;
      }
      if (deps.transport === null) {
        deps.logger.warn(
          { email, link: acceptUrl },
          'SMTP is not configured: send this invite link yourself',
        );
        return;
      }
      await deps.transport.sendMail(
        composeMail({
          from: deps.from,
          to: email,
          subject: `You are invited to ${orgName} on linkhop`,
          lines: [
            `You are invited to join ${orgName} on linkhop.`,
            `The link works once, within ${INVITE_DAYS} days. If you did not expect it, ignore this mail.`,
          ],
          action: { label: 'Accept the invite', url: acceptUrl },
        }),
      );
    })().catch((error: unknown) => deps.logger.error({ err: error, email }, 'invite mail failed'));
  }

  async function joinAs(invite: { email: string }, password: string | undefined, session?: SessionContext) {
    const user = await deps.repo.findUserByEmail(invite.email);
    if (!user) {
      if (!password || password.length < 8)
        throw appError('invalid_body', 'password: choose one of at least 8 characters');
      return { userId: null, passwordHash: await hashPassword(password) };
    }
    if (session?.user.id === user.id) return { userId: user.id, passwordHash: null };
    if (!password || !(await verifyPassword(password, user.passwordHash)))
      throw appError('invalid_credentials');
    return { userId: user.id, passwordHash: null };
  }

  return {
    async create(ctx: OrgContext, input: { email: string; role: Role }) {
      checkOwnerChange(ctx.actor, input.role === 'owner');
      const org = await deps.accounts.getOrganization(ctx.orgId);
      const existing = await deps.repo.findUserByEmail(input.email);
      if (existing && (await members.listMembers(ctx.orgId)).some((row) => row.userId === existing.id))
        throw appError('already_member');
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
      mailInvite(invite.email, org.name, acceptUrl);
      return {
        id: invite.id,
        email: invite.email,
        role: invite.role,
        expiresAt: invite.expiresAt,
        acceptUrl,
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

    /** What the accept page shows before the person decides. */
    async inspect(token: string) {
      const invite = await members.findInvite(sha256Hex(token), iso());
      if (!invite) throw unknownInvite();
      const existingUser = (await deps.repo.findUserByEmail(invite.email)) !== undefined;
      const { orgName, email, role, expiresAt } = invite;
      return { orgName, email, role, expiresAt, existingUser };
    },

    /**
     * Joins the organization, once; answers a session token working in it. The claim (a conditional
     * delete) and the membership share one transaction, so of two accepts of one token exactly one joins
     * and the other finds the invite gone (404). A new person accepting two organizations' invites at once
     * races on the users' unique email instead: the loser's transaction rolls back whole (its invite stays
     * unclaimed) and it tries once more, now as the existing person, whose password it must then match.
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
