import type { Executor, Store } from '../store/database.js';
import type { Scope } from '../tenancy/permissions.js';

export interface ApiKeyRow {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  revokedAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** The person who made it (a key made by a key: that key's maker); null for the organization's own. */
  createdBy: string | null;
  /** The organization's own key: it survives any one person's removal. */
  orgOwned: boolean;
}

/** A key as listed: with its maker's email (null once that person's account is gone). */
export interface ListedApiKey extends ApiKeyRow {
  createdByEmail: string | null;
}

function parseScopes(text: string): Scope[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as Scope[]) : ['all'];
  } catch {
    return ['all'];
  }
}

/** API keys: the only SQL about them. Only a key's SHA-256 is stored. */
export function createKeyRepo(store: Store) {
  const { db } = store;

  return {
    db,

    async insertApiKey(ex: Executor, key: ApiKeyRow & { keyHash: string }): Promise<void> {
      await ex
        .insertInto('api_keys')
        .values({
          id: key.id,
          org_id: key.orgId,
          key_hash: key.keyHash,
          prefix: key.prefix,
          name: key.name,
          scopes: JSON.stringify(key.scopes),
          revoked_at: null,
          created_at: key.createdAt,
          created_by: key.createdBy,
          org_owned: key.orgOwned ? 1 : 0,
        })
        .execute();
    },

    /**
     * The live key with this hash and its organization; revoked keys and deleted organizations never.
     * `makerRole` is the maker's role in the organization now (null once they left it).
     */
    async findLiveKeyByHash(keyHash: string) {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('organizations', 'organizations.id', 'api_keys.org_id')
        .leftJoin('memberships', (join) =>
          join
            .onRef('memberships.user_id', '=', 'api_keys.created_by')
            .onRef('memberships.org_id', '=', 'api_keys.org_id'),
        )
        .select([
          'api_keys.id as keyId',
          'api_keys.key_hash as keyHash',
          'api_keys.name as name',
          'api_keys.scopes as scopes',
          'api_keys.created_by as createdBy',
          'api_keys.org_owned as orgOwned',
          'memberships.role as makerRole',
          'organizations.id as orgId',
          'organizations.tier as tier',
        ])
        .where('api_keys.key_hash', '=', keyHash)
        .where('api_keys.revoked_at', 'is', null)
        .where('organizations.deleted_at', 'is', null)
        .executeTakeFirst();
      return row && { ...row, orgOwned: Number(row.orgOwned) === 1, scopes: parseScopes(row.scopes) };
    },

    async listApiKeys(orgId: string): Promise<ListedApiKey[]> {
      const rows = await db
        .selectFrom('api_keys')
        .leftJoin('users', 'users.id', 'api_keys.created_by')
        .selectAll('api_keys')
        .select('users.email as maker_email')
        .where('api_keys.org_id', '=', orgId)
        .orderBy('api_keys.created_at', 'desc')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        orgId: row.org_id,
        name: row.name,
        prefix: row.prefix,
        scopes: parseScopes(row.scopes),
        revokedAt: row.revoked_at,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        createdBy: row.created_by,
        orgOwned: Number(row.org_owned) === 1,
        createdByEmail: row.maker_email ?? null,
      }));
    },

    /** Revokes the live keys `userId` made in `orgId` (not the organization's own); their ids and names. */
    async revokeKeysMadeBy(
      ex: Executor,
      orgId: string,
      userId: string,
      now: string,
    ): Promise<{ id: string; name: string }[]> {
      return ex
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('org_id', '=', orgId)
        .where('created_by', '=', userId)
        .where('org_owned', '=', 0)
        .where('revoked_at', 'is', null)
        .returning(['id', 'name'])
        .execute();
    },

    /** Ids of every key `userId` made in `orgId`, live or not (the invites they sent through one). */
    async keyIdsMadeBy(ex: Executor, orgId: string, userId: string): Promise<string[]> {
      const rows = await ex
        .selectFrom('api_keys')
        .select('id')
        .where('org_id', '=', orgId)
        .where('created_by', '=', userId)
        .execute();
      return rows.map((row) => row.id);
    },

    /** Revokes by id, optionally within one organization; the key's name when it was live, else null. */
    async revokeApiKey(ex: Executor, id: string, now: string, orgId?: string): Promise<string | null> {
      let query = ex
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null);
      if (orgId !== undefined) query = query.where('org_id', '=', orgId);
      const row = await query.returning(['name']).executeTakeFirst();
      return row ? row.name : null;
    },

    async touchApiKey(id: string, now: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
    },
  };
}

export type KeyRepo = ReturnType<typeof createKeyRepo>;
