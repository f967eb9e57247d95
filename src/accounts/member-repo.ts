import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { Role } from '../tenancy/permissions.js';

export interface MembershipOrg {
  orgId: string;
  name: string;
  tier: string;
  role: Role;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

export interface InviteRow {
  id: string;
  orgId: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  expiresAt: string;
  createdAt: string;
}

/** Memberships and invites: the only SQL about who belongs to which organization. */
export function createMemberRepo(store: Store) {
  const { db } = store;
  const toInvite = (row: {
    id: string;
    org_id: string;
    email: string;
    role: string;
    invited_by: string | null;
    expires_at: string;
    created_at: string;
  }): InviteRow => ({
    id: row.id,
    orgId: row.org_id,
    email: row.email,
    role: row.role as Role,
    invitedBy: row.invited_by,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  });

  return {
    transaction: unitOfWork(db),

    /** A user's organizations (deleted ones never), oldest membership first. */
    async organizationsOf(userId: string): Promise<MembershipOrg[]> {
      const rows = await db
        .selectFrom('memberships')
        .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
        .select(['organizations.id as orgId', 'organizations.name as name', 'organizations.tier as tier'])
        .select('memberships.role as role')
        .where('memberships.user_id', '=', userId)
        .where('organizations.deleted_at', 'is', null)
        .orderBy('memberships.created_at', 'asc')
        .orderBy('organizations.id', 'asc')
        .execute();
      return rows.map((row) => ({ ...row, role: row.role as Role }));
    },

    async listMembers(orgId: string, ex: Executor = db): Promise<Member[]> {
      const rows = await ex
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select(['users.id as userId', 'users.email as email', 'memberships.role as role'])
        .select('memberships.created_at as createdAt')
        .where('memberships.org_id', '=', orgId)
        .orderBy('memberships.created_at', 'asc')
        .orderBy('users.email', 'asc')
        .execute();
      return rows.map((row) => ({ ...row, role: row.role as Role }));
    },

    async insertMembership(
      ex: Executor,
      row: { userId: string; orgId: string; role: Role; createdAt: string },
    ): Promise<void> {
      await ex
        .insertInto('memberships')
        .values({ user_id: row.userId, org_id: row.orgId, role: row.role, created_at: row.createdAt })
        .execute();
    },

    async setRole(ex: Executor, orgId: string, userId: string, role: Role): Promise<void> {
      await ex
        .updateTable('memberships')
        .set({ role })
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .execute();
    },

    /**
     * Moves a person's home organization (users.org_id) off one they no longer belong to, so erasing
     * that organization later never touches them.
     */
    async rehomeUser(ex: Executor, userId: string, fromOrgId: string, toOrgId: string): Promise<void> {
      await ex
        .updateTable('users')
        .set({ org_id: toOrgId })
        .where('id', '=', userId)
        .where('org_id', '=', fromOrgId)
        .execute();
    },

    async deleteMembership(ex: Executor, orgId: string, userId: string): Promise<void> {
      await ex.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },

    /**
     * Takes the organization's row lock for the rest of the transaction (a no-op write), so two owners
     * demoting each other at once cannot both see the other still an owner (PostgreSQL; SQLite already
     * runs one writer at a time).
     */
    async lockOrganization(ex: Executor, orgId: string): Promise<void> {
      await ex.updateTable('organizations').set({ id: orgId }).where('id', '=', orgId).execute();
    },

    async insertInvite(ex: Executor, row: InviteRow & { tokenHash: string }): Promise<void> {
      await ex
        .insertInto('invites')
        .values({
          id: row.id,
          org_id: row.orgId,
          email: row.email,
          role: row.role,
          token_hash: row.tokenHash,
          invited_by: row.invitedBy,
          expires_at: row.expiresAt,
          created_at: row.createdAt,
        })
        .execute();
    },

    async countPendingInvites(orgId: string, now: string): Promise<number> {
      const row = await db
        .selectFrom('invites')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Pending invites; expired ones are swept on the way. */
    async listInvites(orgId: string, now: string): Promise<InviteRow[]> {
      await db.deleteFrom('invites').where('expires_at', '<=', now).execute();
      const rows = await db
        .selectFrom('invites')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map(toInvite);
    },

    async deleteInvite(ex: Executor, orgId: string, id: string): Promise<InviteRow | undefined> {
      const row = await ex
        .deleteFrom('invites')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toInvite(row);
    },

    /** Deletes the organization's pending invites sent by any of `senderIds` (people or keys). */
    async deleteInvitesSentBy(
      ex: Executor,
      orgId: string,
      senderIds: string[],
    ): Promise<{ id: string; email: string }[]> {
      if (senderIds.length === 0) return [];
      return ex
        .deleteFrom('invites')
        .where('org_id', '=', orgId)
        .where('invited_by', 'in', senderIds)
        .returning(['id', 'email'])
        .execute();
    },

    async findInvite(tokenHash: string, now: string) {
      const row = await db
        .selectFrom('invites')
        .innerJoin('organizations', 'organizations.id', 'invites.org_id')
        .selectAll('invites')
        .select('organizations.name as orgName')
        .where('invites.token_hash', '=', tokenHash)
        .where('invites.expires_at', '>', now)
        .where('organizations.deleted_at', 'is', null)
        .executeTakeFirst();
      return row && { ...toInvite(row), orgName: row.orgName };
    },

    /** Takes a live invite out, once: the delete is the claim, so a token works a single time. */
    async claimInvite(ex: Executor, tokenHash: string, now: string): Promise<InviteRow | undefined> {
      const row = await ex
        .deleteFrom('invites')
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return row && toInvite(row);
    },
  };
}

export type MemberRepo = ReturnType<typeof createMemberRepo>;
