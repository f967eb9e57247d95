import { sql } from 'kysely';
import type { Executor, Store } from '../store/database.js';
import type { Tier } from '../tenancy/plans.js';
import { createKeyRepo } from './key-repo.js';
import { createMemberRepo } from './member-repo.js';

export interface Organization {
  id: string;
  name: string;
  tier: Tier;
  createdAt: string;
  /** Set once its last owner deleted it: only its links' slug, hostname and destination remain. */
  deletedAt?: string | null;
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

/**
 * The advisory lock two first sign-ups take turns on (PostgreSQL), so only one of them finds no
 * organization: "lh" and "fa", apart from the analytics' lock space (0x6c68).
 */
const FIRST_ACCOUNT_LOCK = [0x6c68_6661, 1] as const;

/** Organizations, users and sessions (API keys: key-repo.ts; memberships: member-repo.ts). */
export function createAccountRepo(store: Store) {
  const { db } = store;
  const toOrg = (row: {
    id: string;
    name: string;
    tier: string;
    created_at: string;
    deleted_at?: string | null;
  }): Organization => ({
    id: row.id,
    name: row.name,
    tier: row.tier as Tier,
    createdAt: row.created_at,
    deletedAt: row.deleted_at ?? null,
  });

  /** A user and their membership of `orgId` with `role`, together (inside `ex` when given). */
  async function insertUser(
    user: UserRow & { createdAt: string; role: string },
    ex?: Executor,
  ): Promise<void> {
    const insert = async (trx: Executor) => {
      await trx
        .insertInto('users')
        .values({
          id: user.id,
          org_id: user.orgId,
          email: user.email,
          password_hash: user.passwordHash,
          created_at: user.createdAt,
        })
        .execute();
      await trx
        .insertInto('memberships')
        .values({ user_id: user.id, org_id: user.orgId, role: user.role, created_at: user.createdAt })
        .execute();
    };
    await (ex ? insert(ex) : db.transaction().execute(insert));
  }

  /** Whether this instance has ever had an organization (a deleted one counts: it had an operator). */
  async function hasAnyOrganization(ex: Executor = db): Promise<boolean> {
    const row = await ex.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  return {
    keys: createKeyRepo(store),
    members: createMemberRepo(store),

    async insertOrganization(org: Organization): Promise<void> {
      await db
        .insertInto('organizations')
        .values({ id: org.id, name: org.name, tier: org.tier, created_at: org.createdAt })
        .execute();
    },

    hasAnyOrganization: () => hasAnyOrganization(),

    /**
     * A sign-up's organization and its owner, in one transaction. `tierFor(first)` decides the plan,
     * `first` being whether the instance had no organization at all: on PostgreSQL two of these take turns
     * on an advisory lock, so two simultaneous first sign-ups cannot both see an empty instance; SQLite
     * runs one write transaction at a time (and Kysely one transaction per connection).
     */
    async insertAccount(
      input: { org: Omit<Organization, 'tier'>; user: UserRow & { createdAt: string } },
      tierFor: (first: boolean) => Tier | Promise<Tier>,
    ): Promise<Tier> {
      return db.transaction().execute(async (trx) => {
        if (store.dialect === 'postgres')
          await sql`select pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK[0]}, ${FIRST_ACCOUNT_LOCK[1]})`.execute(
            trx,
          );
        const tier = await tierFor(!(await hasAnyOrganization(trx)));
        const { org, user } = input;
        await trx
          .insertInto('organizations')
          .values({ id: org.id, name: org.name, tier, created_at: org.createdAt })
          .execute();
        await insertUser({ ...user, role: 'owner' }, trx);
        return tier;
      });
    },

    async findOrganization(id: string): Promise<Organization | undefined> {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toOrg(row);
    },

    async setTier(id: string, tier: Tier, ex: Executor = db): Promise<boolean> {
      const result = await ex
        .updateTable('organizations')
        .set({ tier })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** A user and their membership of `orgId` with `role`, together (inside `ex` when given). */
    insertUser,

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
        .select(['users.id as userId', 'users.email as email', 'sessions.org_id as orgId'])
        .where('sessions.id_hash', '=', idHash)
        .where('sessions.expires_at', '>', now)
        .executeTakeFirst();
    },

    async deleteSession(idHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },

    /** Which organization the session works in (the org switcher). */
    async setSessionOrg(idHash: string, orgId: string): Promise<void> {
      await db.updateTable('sessions').set({ org_id: orgId }).where('id_hash', '=', idHash).execute();
    },

    /** Ends every session of a user but `keep` (after a password change or reset). */
    async deleteSessionsOf(userId: string, keep?: string): Promise<void> {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keep !== undefined) query = query.where('id_hash', '!=', keep);
      await query.execute();
    },

    async findUserById(id: string): Promise<UserRow | undefined> {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && { id: row.id, orgId: row.org_id, email: row.email, passwordHash: row.password_hash };
    },

    async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    },

    async insertPasswordReset(row: {
      tokenHash: string;
      userId: string;
      expiresAt: string;
      createdAt: string;
    }): Promise<void> {
      await db
        .insertInto('password_resets')
        .values({
          token_hash: row.tokenHash,
          user_id: row.userId,
          expires_at: row.expiresAt,
          created_at: row.createdAt,
        })
        .execute();
    },

    /** Takes a live reset out, once (the delete is the claim); expired ones are swept on the way. */
    async claimPasswordReset(tokenHash: string, now: string): Promise<string | undefined> {
      await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
      const row = await db
        .deleteFrom('password_resets')
        .where('token_hash', '=', tokenHash)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },

    /** A new password voids every other reset link of the user. */
    async deletePasswordResetsOf(userId: string): Promise<void> {
      await db.deleteFrom('password_resets').where('user_id', '=', userId).execute();
    },

    async listOrganizations(): Promise<Organization[]> {
      const rows = await db
        .selectFrom('organizations')
        .select(['id', 'name', 'tier', 'created_at'])
        .where('deleted_at', 'is', null)
        .orderBy('created_at', 'asc')
        .execute();
      return rows.map(toOrg);
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
