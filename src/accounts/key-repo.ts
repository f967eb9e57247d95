import type { Kysely } from 'kysely';
import type { Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { Scope } from './permissions.js';

export interface ApiKeyRow {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  revokedAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/** A connection or a transaction: writes that audit themselves run inside the caller's transaction. */
export type Executor = Kysely<Database>;

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
        })
        .execute();
    },

    /** The live key with this hash and its organization; revoked keys and deleted organizations never. */
    async findLiveKeyByHash(keyHash: string) {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('organizations', 'organizations.id', 'api_keys.org_id')
        .select([
          'api_keys.id as keyId',
          'api_keys.key_hash as keyHash',
          'api_keys.name as name',
          'api_keys.scopes as scopes',
          'organizations.id as orgId',
          'organizations.tier as tier',
        ])
        .where('api_keys.key_hash', '=', keyHash)
        .where('api_keys.revoked_at', 'is', null)
        .where('organizations.deleted_at', 'is', null)
        .executeTakeFirst();
      return row && { ...row, scopes: parseScopes(row.scopes) };
    },

    async listApiKeys(orgId: string): Promise<ApiKeyRow[]> {
      const rows = await db
        .selectFrom('api_keys')
        .select(['id', 'org_id', 'name', 'prefix', 'scopes', 'revoked_at', 'created_at', 'last_used_at'])
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
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
      }));
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
