import type { Kysely } from 'kysely';
import type { Store } from '../store/database.js';
import type { AudienceTables } from '../store/migrations/011-audience.js';
import type { Database } from '../store/schema.js';

/** The store seen with the audience tables; the cast stands until schema.ts's Database lists them. */
export type AudienceDb = Database & AudienceTables;

export function audienceDb(store: Store): Kysely<AudienceDb> {
  return store.db as unknown as Kysely<AudienceDb>;
}

/** The same transaction seen with the core tables only, as the audit log writes through it. */
export function coreView(trx: Kysely<AudienceDb>): Kysely<Database> {
  return trx as unknown as Kysely<Database>;
}
