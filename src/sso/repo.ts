import type { Selectable } from 'kysely';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { SsoConfigTable } from '../store/migrations/031-sso.js';
import type { Role } from '../tenancy/permissions.js';

export interface SsoConfigRow {
  orgId: string;
  issuer: string;
  clientId: string;
  clientSecretBox: string;
  allowedDomain: string;
  defaultRole: Role;
  requireSso: boolean;
  displayName: string;
  createdAt: string;
  updatedAt: string;
}

export interface SsoLoginRow {
  stateHash: string;
  orgId: string;
  nonce: string;
  codeVerifier: string;
  expiresAt: string;
  createdAt: string;
}

/** The audit actions that end or start a membership; the latest one says whether an owner removed someone. */
const MEMBERSHIP_EVENTS = ['member.removed', 'member.added', 'invite.accepted', 'member.joined_sso'];

/** Single sign-on's SQL: each organization's provider, the identities it linked, the sign-ins under way. */
export function createSsoRepo(store: Store) {
  const { db } = store;
  const toConfig = (row: Selectable<SsoConfigTable>): SsoConfigRow => ({
    orgId: row.org_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretBox: row.client_secret_box,
    allowedDomain: row.allowed_domain,
    defaultRole: row.default_role as Role,
    requireSso: row.require_sso === 1,
    displayName: row.display_name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

  return {
    transaction: unitOfWork(db),

    async findConfig(orgId: string): Promise<SsoConfigRow | undefined> {
      const row = await db
        .selectFrom('sso_configs')
        .selectAll()
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return row && toConfig(row);
    },

    async findConfigByDomain(domain: string): Promise<SsoConfigRow | undefined> {
      const row = await db
        .selectFrom('sso_configs')
        .selectAll()
        .where('allowed_domain', '=', domain)
        .executeTakeFirst();
      return row && toConfig(row);
    },

    /** Inserts or replaces the organization's configuration (unique domain: the caller maps the violation). */
    async upsertConfig(row: SsoConfigRow, ex: Executor = db): Promise<void> {
      const values = {
        issuer: row.issuer,
        client_id: row.clientId,
        client_secret_box: row.clientSecretBox,
        allowed_domain: row.allowedDomain,
        default_role: row.defaultRole,
        require_sso: row.requireSso ? 1 : 0,
        display_name: row.displayName,
        updated_at: row.updatedAt,
      };
      await ex
        .insertInto('sso_configs')
        .values({ org_id: row.orgId, created_at: row.createdAt, ...values })
        .onConflict((oc) => oc.column('org_id').doUpdateSet(values))
        .execute();
    },

    async deleteConfig(orgId: string, ex: Executor = db): Promise<boolean> {
      const result = await ex.deleteFrom('sso_configs').where('org_id', '=', orgId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async insertLogin(row: SsoLoginRow): Promise<void> {
      await db
        .insertInto('sso_logins')
        .values({
          state_hash: row.stateHash,
          org_id: row.orgId,
          nonce: row.nonce,
          code_verifier: row.codeVerifier,
          expires_at: row.expiresAt,
          created_at: row.createdAt,
        })
        .execute();
    },

    /** Takes a live sign-in out, once: the delete is the claim. Expired ones are swept on the way. */
    async claimLogin(stateHash: string, now: string): Promise<SsoLoginRow | undefined> {
      await db.deleteFrom('sso_logins').where('expires_at', '<=', now).execute();
      const row = await db
        .deleteFrom('sso_logins')
        .where('state_hash', '=', stateHash)
        .returningAll()
        .executeTakeFirst();
      return (
        row && {
          stateHash: row.state_hash,
          orgId: row.org_id,
          nonce: row.nonce,
          codeVerifier: row.code_verifier,
          expiresAt: row.expires_at,
          createdAt: row.created_at,
        }
      );
    },

    async findIdentity(issuer: string, subject: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('sso_identities')
        .select('user_id')
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row?.user_id;
    },

    async insertIdentity(
      row: { issuer: string; subject: string; userId: string; orgId: string; createdAt: string },
      ex: Executor = db,
    ): Promise<void> {
      await ex
        .insertInto('sso_identities')
        .values({
          issuer: row.issuer,
          subject: row.subject,
          user_id: row.userId,
          org_id: row.orgId,
          created_at: row.createdAt,
        })
        .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
        .execute();
    },

    /**
     * Whether an owner removed this person from the organization and nobody let them back in since: the
     * latest membership event the audit log holds for them there (written in the removal's transaction).
     */
    async wasRemoved(orgId: string, userId: string): Promise<boolean> {
      const row = await db
        .selectFrom('audit_log')
        .select('action')
        .where('org_id', '=', orgId)
        .where('target_id', '=', userId)
        .where('action', 'in', MEMBERSHIP_EVENTS)
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.action === 'member.removed';
    },

    /**
     * Whether a password log-in is refused for this person: they are a member, not an owner, of an
     * organization that requires single sign-on, and that organization's provider can sign them in (they
     * are linked to its issuer, or belong to no other organization, so a first sign-in would link them).
     * Someone it could not sign in keeps their password rather than being locked out.
     */
    async passwordRefused(userId: string): Promise<boolean> {
      const memberships = await db
        .selectFrom('memberships')
        .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
        .leftJoin('sso_configs', 'sso_configs.org_id', 'memberships.org_id')
        .select(['memberships.org_id as orgId', 'memberships.role as role'])
        .select(['sso_configs.issuer as issuer', 'sso_configs.require_sso as requireSso'])
        .where('memberships.user_id', '=', userId)
        .where('organizations.deleted_at', 'is', null)
        .execute();
      const requiring = memberships.filter((row) => row.requireSso === 1 && row.role !== 'owner');
      if (requiring.length === 0) return false;
      const linked = await db
        .selectFrom('sso_identities')
        .select('issuer')
        .where('user_id', '=', userId)
        .execute();
      return requiring.some(
        (row) =>
          linked.some((identity) => identity.issuer === row.issuer) ||
          memberships.every((other) => other.orgId === row.orgId),
      );
    },
  };
}

export type SsoRepo = ReturnType<typeof createSsoRepo>;
