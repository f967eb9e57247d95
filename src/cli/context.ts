import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createEraseService, type EraseService } from '../accounts/erase.js';
import { createEraseRepo } from '../accounts/erase-repo.js';
import { createAccountRepo } from '../accounts/repo.js';
import { type AccountService, createAccountService } from '../accounts/service.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditLog } from '../audit/service.js';
import { parseConfig } from '../config.js';
import { createMemberService, type MemberService } from '../members/service.js';
import { publishOrganizationInvalidation } from '../redirect/link-cache.js';
import { migrateToLatest, openStore } from '../store/database.js';

export interface CliServices {
  accounts: AccountService;
  members: MemberService;
  erase: EraseService;
}

/** Opens the store named by DATABASE_URL (migrated), runs one command, closes the store. */
export async function withServices<T>(run: (services: CliServices) => Promise<T>): Promise<T> {
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store);
    const now = () => new Date();
    // What the operator changes is in the organization's audit log, as the operator's.
    const audit = createAuditLog({ repo: createAuditRepo(store), now });
    const repo = createAccountRepo(store);
    const invalidate = config.redisUrl ? planChangePublisher(config.redisUrl) : undefined;
    const accounts = createAccountService({
      repo,
      now,
      uuid: randomUUID,
      audit,
      ...(invalidate ? { onPlanChange: invalidate } : {}),
    });
    return await run({
      accounts,
      members: createMemberService({ repo, accounts, audit, now }),
      erase: createEraseService({
        repo: createEraseRepo(store),
        accounts: repo,
        audit,
        now,
        ...(invalidate ? { invalidateOrganization: invalidate } : {}),
      }),
    });
  } finally {
    await store.close();
  }
}

/** The accounts service alone, for commands that need nothing else. */
export function withAccounts<T>(run: (accounts: AccountService) => Promise<T>): Promise<T> {
  return withServices(({ accounts }) => run(accounts));
}

/**
 * Tells the running instances (through Redis) to drop an organization's cached links after a plan change
 * or a purge. Without REDIS_URL there is one instance per database, and its cache TTL bounds the staleness.
 */
export function planChangePublisher(redisUrl: string): (orgId: string) => Promise<void> {
  return async (orgId) => {
    const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
    try {
      await publisher.connect();
      await publishOrganizationInvalidation(publisher, orgId);
    } catch (error) {
      // The change is made; only the instances' caches lag, by their TTL at most.
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
