import type { Actor } from '../audit/schema.js';
import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { OrgContext, SessionContext } from '../tenancy/context.js';
import { atLeast, type Role } from '../tenancy/permissions.js';
import { endHoldings } from './holdings.js';
import { KEY_HOLDER_ROLE } from './keys.js';
import type { Member } from './member-repo.js';
import type { AccountRepo } from './repo.js';
import { hashPassword } from './secrets.js';
import type { AccountService } from './service.js';

export interface MemberServiceDeps {
  repo: AccountRepo;
  accounts: AccountService;
  now: () => Date;
  audit?: AuditLog;
}

/** Only an owner makes, unmakes or removes owners ("admins: everything but ... changing owners"). */
export function checkOwnerChange(actor: Actor | undefined, touchesOwner: boolean): void {
  if (touchesOwner && !(actor?.role && atLeast(actor.role, 'owner')))
    throw appError('forbidden_role', 'Only an owner can make, change or remove an owner');
}

/** The members of an organization and their roles (issue #20). */
export function createMemberService(deps: MemberServiceDeps) {
  const members = deps.repo.members;
  const iso = () => deps.now().toISOString();

  async function find(orgId: string, userId: string, list?: Member[]): Promise<Member> {
    const member = (list ?? (await members.listMembers(orgId))).find((row) => row.userId === userId);
    if (!member) throw appError('not_found', 'No such member');
    return member;
  }

  /** Runs a change under the organization's lock and refuses it if it leaves no owner. */
  async function keepingAnOwner(ctx: OrgContext, change: Parameters<typeof members.transaction>[0]) {
    await members.transaction(async (trx) => {
      await members.lockOrganization(trx, ctx.orgId);
      await change(trx);
      const owners = (await members.listMembers(ctx.orgId, trx)).filter((row) => row.role === 'owner');
      if (owners.length === 0) throw appError('last_owner');
    });
  }

  return {
    list: (ctx: OrgContext) => members.listMembers(ctx.orgId),

    async changeRole(ctx: OrgContext, userId: string, role: Role): Promise<Member> {
      const member = await find(ctx.orgId, userId);
      checkOwnerChange(ctx.actor, member.role === 'owner' || role === 'owner');
      if (member.role === role) return member;
      await keepingAnOwner(ctx, async (trx) => {
        await members.setRole(trx, ctx.orgId, userId, role);
        await deps.audit?.record(trx, ctx, {
          action: 'member.role_changed',
          target: { type: 'member', id: userId },
          changes: { role: { from: member.role, to: role } },
        });
        if (!atLeast(role, KEY_HOLDER_ROLE))
          await endHoldings(deps, trx, ctx, { userId, reason: `role changed to ${role}` }, iso());
      });
      return { ...member, role };
    },

    async remove(ctx: OrgContext, userId: string): Promise<void> {
      const member = await find(ctx.orgId, userId);
      checkOwnerChange(ctx.actor, member.role === 'owner');
      await keepingAnOwner(ctx, async (trx) => {
        await members.deleteMembership(trx, ctx.orgId, userId);
        await deps.audit?.record(trx, ctx, {
          action: 'member.removed',
          target: { type: 'member', id: userId },
          changes: { email: member.email, role: { from: member.role, to: null } },
        });
        await endHoldings(deps, trx, ctx, { userId, reason: 'member removed' }, iso());
      });
    },

    /**
     * The session's person leaves the organization they are working in, whatever their role (leaving is
     * no power over others). The last owner cannot (409 last_owner: make someone else owner, or delete
     * the account, which takes the organization with it); nor can one leave their only organization
     * (409 only_organization: that is deleting the account). Answers the organization left.
     */
    async leave(session: SessionContext): Promise<{ orgId: string }> {
      const orgId = session.org.id;
      const next = session.orgs.find((org) => org.id !== orgId);
      if (!next) throw appError('only_organization');
      const actor = { type: 'user' as const, id: session.user.id, label: session.user.email };
      const ctx = { orgId, tier: session.org.tier, features: session.features, actor };
      const member = await find(orgId, session.user.id);
      await keepingAnOwner(ctx, async (trx) => {
        await members.deleteMembership(trx, orgId, member.userId);
        await members.rehomeUser(trx, member.userId, orgId, next.id);
        await deps.audit?.record(trx, ctx, {
          action: 'member.left',
          target: { type: 'member', id: member.userId },
          changes: { email: member.email, role: { from: member.role, to: null } },
        });
        await endHoldings(deps, trx, ctx, { userId: member.userId, reason: 'member left' }, iso());
      });
      return { orgId };
    },

    /**
     * `linkhop member add`: an existing person joins with `role`; a new one needs a password and gets an
     * account. The operator can name any role, owner included.
     */
    async add(ctx: OrgContext, input: { email: string; role: Role; password?: string }): Promise<Member> {
      const email = input.email.trim().toLowerCase();
      const existing = await deps.repo.findUserByEmail(email);
      const list = await members.listMembers(ctx.orgId);
      if (existing && list.some((row) => row.userId === existing.id)) throw appError('already_member');
      const createdAt = deps.now().toISOString();
      let userId = existing?.id;
      if (!userId) {
        if (!input.password || input.password.length < 8)
          throw appError('invalid_body', 'password: a new person needs one of at least 8 characters');
        userId = await deps.accounts.createUser(
          ctx.orgId,
          email,
          await hashPassword(input.password),
          input.role,
        );
      }
      const id = userId;
      await members.transaction(async (trx) => {
        if (existing)
          await members.insertMembership(trx, { userId: id, orgId: ctx.orgId, role: input.role, createdAt });
        await deps.audit?.record(trx, ctx, {
          action: 'member.added',
          target: { type: 'member', id },
          changes: { email, role: { from: null, to: input.role } },
        });
      });
      return { userId: id, email, role: input.role, createdAt };
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
