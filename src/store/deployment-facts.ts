import type { Store } from './database.js';

/**
 * Facts the instances record about the deployment, for the operator's commands to read (migration 027).
 * `redis_invalidation`: an instance sharing its link caches through Redis started at this time, so a
 * change made outside the instances (the CLI) must be published on Redis, or they serve it stale.
 */
export const REDIS_INVALIDATION = 'redis_invalidation';

/** Records (or refreshes) a fact; the last writer's value wins. */
export async function recordDeploymentFact(
  store: Store,
  name: string,
  value: string,
  now: Date,
): Promise<void> {
  const updatedAt = now.toISOString();
  await store.db
    .insertInto('deployment_facts')
    .values({ name, value, updated_at: updatedAt })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: updatedAt }))
    .execute();
}

/** The fact's value, or null when no instance ever recorded it. */
export async function deploymentFact(store: Store, name: string): Promise<string | null> {
  const row = await store.db
    .selectFrom('deployment_facts')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.value ?? null;
}

/**
 * A hosted instance started with REDIS_URL says so. Never fails the start: the fact only arms a guard in
 * the CLI, and every later start records it again.
 */
export async function recordRedisInvalidation(
  store: Store,
  logger: { warn(details: object, message: string): void },
  now = new Date(),
): Promise<void> {
  try {
    await recordDeploymentFact(store, REDIS_INVALIDATION, now.toISOString(), now);
  } catch (error) {
    logger.warn({ err: error }, 'could not record that this deployment shares caches through Redis');
  }
}
