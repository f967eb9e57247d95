import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createAccountRepo } from '../accounts/repo.js';
import { type AccountService, createAccountService } from '../accounts/service.js';
import { parseConfig } from '../config.js';
import { publishOrganizationInvalidation } from '../redirect/link-cache.js';
import { migrateToLatest, openStore } from '../store/database.js';

/** Opens the store named by DATABASE_URL (migrated), runs one command, closes the store. */
export async function withAccounts<T>(run: (accounts: AccountService) => Promise<T>): Promise<T> {
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store);
    const accounts = createAccountService({
      repo: createAccountRepo(store),
      now: () => new Date(),
      uuid: randomUUID,
      ...(config.redisUrl ? { onPlanChange: planChangePublisher(config.redisUrl) } : {}),
    });
    return await run(accounts);
  } finally {
    await store.close();
  }
}

/**
 * Tells the running instances (through Redis) to drop an organization's cached links after a plan change.
 * Without REDIS_URL there is one instance per database, and its cache TTL bounds the staleness.
 */
export function planChangePublisher(redisUrl: string): (orgId: string) => Promise<void> {
  return async (orgId) => {
    const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
    try {
      await publisher.connect();
      await publishOrganizationInvalidation(publisher, orgId);
    } catch (error) {
      // The plan is changed; only the instances' caches lag, by their TTL at most.
      process.stderr.write(`warning: instances not told to drop cached links (${String(error)})\n`);
    } finally {
      publisher.disconnect();
    }
  };
}

/** The one line a script reads. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export class CliError extends Error {}
