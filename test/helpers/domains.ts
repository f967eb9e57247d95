import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/database.js';

/**
 * Gives `orgId` the verified domain `hostname` straight in the store, as if its TXT record had been seen:
 * for tests about links on custom hostnames (test/domains/ proves the verification itself over DNS).
 */
export async function addVerifiedDomain(store: Store, orgId: string, hostname: string): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await store.db
    .insertInto('domains')
    .values({
      id,
      org_id: orgId,
      hostname,
      token: randomBytes(16).toString('hex'),
      verified_at: now,
      created_at: now,
    })
    .execute();
  return id;
}
