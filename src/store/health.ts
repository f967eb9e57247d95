import { sql } from 'kysely';
import type { Store } from './database.js';

/** One round trip to the store: what /health answers for. */
export async function pingStore(store: Store): Promise<void> {
  await sql`select 1`.execute(store.db);
}
