import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/database.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';

/** An organization row written straight to the store, and its context as a service call takes it. */
export async function makeOrg(
  store: Store,
  tier: Tier = 'legend',
  options: { name?: string; createdAt?: Date } = {},
): Promise<OrgContext> {
  const orgId = randomUUID();
  await store.db
    .insertInto('organizations')
    .values({
      id: orgId,
      name: options.name ?? `Org ${tier}`,
      tier,
      created_at: (options.createdAt ?? new Date()).toISOString(),
    })
    .execute();
  return { orgId, tier, features: featuresOf(tier) };
}
