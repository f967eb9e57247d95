import type { Store } from '../store/database.js';
import type { Tier } from './plans.js';

export interface Organization {
  id: string;
  name: string;
  tier: Tier;
  createdAt: string;
}

export interface UserRow {
  id: string;
  orgId: string;
  email: string;
  passwordHash: string;
}

export interface SignupRequest {
  email: string;
  passwordHash: string;
  orgName: string;
  expiresAt: string;
}

export interface ApiKeyRow {
  id: string;
  orgId: string;
  prefix: string;
  revokedAt: string | null;
  createdAt: string;
}

/** Organizations, users, sessions and API keys: the only SQL of the accounts domain. */
export function createAccountRepo(store: Store) {
  const { db } = store;
  const toOrg = (row: { id: string; name: string; tier: string; created_at: string }): Organization => ({
    id: row.id,
    name: row.name,
    tier: row.tier as Tier,
    createdAt: row.created_at,
  });

  return {
    async insertOrganization(org: Organization): Promise<void> {
      await db
        .insertInto('organizations')
        .values({ id: org.id, name: org.name, tier: org.tier, created_at: org.createdAt })
        .execute();
    },

    async findOrganization(id: string): Promise<Organization | undefined> {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toOrg(row);
    },

    async setTier(id: string, tier: Tier): Promise<boolean> {
      const result = await db
        .updateTable('organizations')
        .set({ tier })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async insertUser(user: UserRow & { createdAt: string }): Promise<void> {
      await db
        .insertInto('users')
        .values({
          id: user.id,
          org_id: user.orgId,
          email: user.email,
          password_hash: user.passwordHash,
          created_at: user.createdAt,
        })
        .execute();
    },

    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      return row && { id: row.id, orgId: row.org_id, email: row.email, passwordHash: row.password_hash };
    },

    async insertSession(idHash: string, userId: string, expiresAt: string, createdAt: string): Promise<void> {
      await db
        .insertInto('sessions')
        .values({ id_hash: idHash, user_id: userId, expires_at: expiresAt, created_at: createdAt })
        .execute();
    },

    /** A sign-up waiting for its email to be confirmed; older ones for the same email stay valid too. */
    async insertSignupRequest(row: SignupRequest & { tokenHash: string; createdAt: string }): Promise<void> {
      await db
        .insertInto('signup_requests')
        .values({
          token_hash: row.tokenHash,
          email: row.email,
          password_hash: row.passwordHash,
          org_name: row.orgName,
          expires_at: row.expiresAt,
          created_at: row.createdAt,
        })
        .execute();
    },

    /**
     * Takes a live sign-up request out, once: the delete is the claim, so two clicks on the same link make
     * one account. Expired rows of any email are swept on the way.
     */
    async claimSignupRequest(tokenHash: string, now: string): Promise<SignupRequest | undefined> {
      await db.deleteFrom('signup_requests').where('expires_at', '<=', now).execute();
      const row = await db
        .deleteFrom('signup_requests')
        .where('token_hash', '=', tokenHash)
        .returningAll()
        .executeTakeFirst();
      return (
        row && {
          email: row.email,
          passwordHash: row.password_hash,
          orgName: row.org_name,
          expiresAt: row.expires_at,
        }
      );
    },

    async findSession(idHash: string, now: string) {
      return db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['users.id as userId', 'users.email as email', 'users.org_id as orgId'])
        .where('sessions.id_hash', '=', idHash)
        .where('sessions.expires_at', '>', now)
        .executeTakeFirst();
    },

    async deleteSession(idHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },

    async insertApiKey(key: ApiKeyRow & { keyHash: string }): Promise<void> {
      await db
        .insertInto('api_keys')
        .values({
          id: key.id,
          org_id: key.orgId,
          key_hash: key.keyHash,
          prefix: key.prefix,
          revoked_at: null,
          created_at: key.createdAt,
        })
        .execute();
    },

    /** The live key with this hash and its organization; revoked keys are never returned. */
    async findLiveKeyByHash(keyHash: string) {
      return db
        .selectFrom('api_keys')
        .innerJoin('organizations', 'organizations.id', 'api_keys.org_id')
        .select([
          'api_keys.id as keyId',
          'api_keys.key_hash as keyHash',
          'organizations.id as orgId',
          'organizations.tier as tier',
        ])
        .where('api_keys.key_hash', '=', keyHash)
        .where('api_keys.revoked_at', 'is', null)
        .executeTakeFirst();
    },

    async listApiKeys(orgId: string): Promise<ApiKeyRow[]> {
      const rows = await db
        .selectFrom('api_keys')
        .select(['id', 'org_id', 'prefix', 'revoked_at', 'created_at'])
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        orgId: row.org_id,
        prefix: row.prefix,
        revokedAt: row.revoked_at,
        createdAt: row.created_at,
      }));
    },

    /** Revokes by id, optionally within one organization; false when there was nothing live to revoke. */
    async revokeApiKey(id: string, now: string, orgId?: string): Promise<boolean> {
      let query = db
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null);
      if (orgId !== undefined) query = query.where('org_id', '=', orgId);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Recomputes read-only flags: the oldest `cap` live links stay writable, the rest become read-only. */
    async applyLinkCap(orgId: string, cap: number): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const live = await trx
          .selectFrom('links')
          .select('id')
          .where('org_id', '=', orgId)
          .where('archived_at', 'is', null)
          .orderBy('created_at', 'asc')
          .orderBy('id', 'asc')
          .execute();
        const writable = live.slice(0, cap).map((row) => row.id);
        const readOnly = live.slice(cap).map((row) => row.id);
        // Archived links hold no slot and are never read-only.
        await trx
          .updateTable('links')
          .set({ read_only: 0 })
          .where('org_id', '=', orgId)
          .where('archived_at', 'is not', null)
          .execute();
        for (const [ids, flag] of [
          [writable, 0],
          [readOnly, 1],
        ] as const) {
          for (let i = 0; i < ids.length; i += 500) {
            await trx
              .updateTable('links')
              .set({ read_only: flag })
              .where('id', 'in', ids.slice(i, i + 500))
              .execute();
          }
        }
        return readOnly.length;
      });
    },
  };
}

export type AccountRepo = ReturnType<typeof createAccountRepo>;
