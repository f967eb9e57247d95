import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createEraseService, type EraseService } from '../accounts/erase.js';
import { createEraseRepo } from '../accounts/erase-repo.js';
import { createMemberService, type MemberService } from '../accounts/members.js';
import { createAccountRepo } from '../accounts/repo.js';
import { type AccountService, createAccountService } from '../accounts/service.js';
import { createAuditRepo } from '../audit/repo.js';
import { createAuditLog } from '../audit/service.js';
import { parseConfig } from '../config.js';
import { publishOrganizationInvalidation, RECORD_PREFIX } from '../redirect/link-cache.js';
import { migrateToLatest, openStore, type Store } from '../store/database.js';
import { deploymentFact, REDIS_INVALIDATION } from '../store/deployment-facts.js';

export interface CliServices {
  accounts: AccountService;
  members: MemberService;
  erase: EraseService;
  /**
   * `org purge`: the erase service's purge, and with REDIS_URL the links' Redis copies (served while the
   * database is away) deleted too; with ANALYTICS_URL the organization's rows in ClickHouse first.
   */
  purgeOrganization(orgId: string): Promise<{ orgId: string; linksDeleted: number }>;
  /** Organizations whose change the running instances were not told about (publishing failed). */
  untold: string[];
}

export interface ServicesOptions {
  /**
   * The command changes what the running instances cache (a purge, a plan change). Where they share their
   * caches through Redis, it refuses to run without REDIS_URL: they could not be told, and would serve it
   * stale. `command` and `drops` word the refusal ("org purge", "the purged links").
   */
  changesCaches?: { command: string; drops: string };
}

/** Opens the store named by DATABASE_URL (migrated), runs one command, closes the store. */
export async function withServices<T>(
  run: (services: CliServices) => Promise<T>,
  options: ServicesOptions = {},
): Promise<T> {
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store);
    if (options.changesCaches && !config.redisUrl) await refuseWhereRedisShared(store, options.changesCaches);
    const now = () => new Date();
    // What the operator changes is in the organization's audit log, as the operator's.
    const audit = createAuditLog({ repo: createAuditRepo(store), now });
    const repo = createAccountRepo(store);
    const untold: string[] = [];
    const invalidate = config.redisUrl ? planChangePublisher(config.redisUrl, untold) : undefined;
    const accounts = createAccountService({
      repo,
      now,
      uuid: randomUUID,
      audit,
      ...(invalidate ? { onPlanChange: invalidate } : {}),
    });
    const eraseRepo = createEraseRepo(store);
    const erase = createEraseService({
      repo: eraseRepo,
      accounts: repo,
      audit,
      now,
      ...(invalidate ? { invalidateOrganization: invalidate } : {}),
    });
    return await run({
      accounts,
      members: createMemberService({ repo, accounts, audit, now }),
      erase,
      async purgeOrganization(orgId) {
        // Read before the purge: it deletes the links whose copies these are.
        const addresses = config.redisUrl ? await eraseRepo.linkAddresses(orgId) : [];
        if (config.analyticsUrl) await eraseClickhouseRows(config.analyticsUrl, store, orgId);
        const purged = await erase.purgeOrganization(orgId);
        if (config.redisUrl && addresses.length > 0)
          await dropRecordCopies(config.redisUrl, orgId, addresses, untold);
        return purged;
      },
      untold,
    });
  } finally {
    await store.close();
  }
}

/**
 * The organization's analytics in ClickHouse, erased before the purge: after it, no organization row is
 * left for the instances' erased-organization sweep to find, so nothing else would ever delete them. A
 * ClickHouse that cannot be reached refuses the purge before anything changes; run again, it queues the
 * deletions again (they delete nothing twice).
 */
async function eraseClickhouseRows(url: string, store: Store, orgId: string): Promise<void> {
  const { openLiveClickhouse } = await import('../analytics/clickhouse/live.js');
  const clickhouse = openLiveClickhouse(url, store);
  try {
    await clickhouse.eraseOrganization(orgId);
  } catch (error) {
    throw new CliError(
      `ClickHouse at ANALYTICS_URL could not erase the organization's analytics (${(error as Error).message}). ` +
        'Nothing was changed: run org purge again once it answers.',
    );
  } finally {
    await clickhouse.close();
  }
}

/**
 * Without REDIS_URL the CLI cannot tell the instances anything. That is fine for one instance (its cache
 * TTL bounds the staleness), not where instances started with REDIS_URL: they keep serving what was
 * changed (a purged organization's links) from their caches. Refused then, before anything changes.
 */
async function refuseWhereRedisShared(
  store: Store,
  { command, drops }: NonNullable<ServicesOptions['changesCaches']>,
): Promise<void> {
  const seen = await deploymentFact(store, REDIS_INVALIDATION);
  if (seen === null) return;
  throw new CliError(
    `This database's instances share caches through Redis (seen ${seen}): run ${command} with REDIS_URL ` +
      `set, so every instance drops ${drops} at once. Nothing was changed.\n` +
      `(If no instance uses Redis any more: delete from deployment_facts where name = '${REDIS_INVALIDATION}')`,
  );
}

/** The accounts service alone, for commands that need nothing else. */
export function withAccounts<T>(
  run: (accounts: AccountService) => Promise<T>,
  options: ServicesOptions = {},
): Promise<T> {
  return withServices(({ accounts }) => run(accounts), options);
}

/**
 * Tells the running instances (through Redis) to drop an organization's cached links after a plan change
 * or a purge. Without REDIS_URL there is one instance per database, and its cache TTL bounds the staleness.
 * A failure is said at once and noted in `untold`: the change is made, the command decides the exit.
 */
export function planChangePublisher(
  redisUrl: string,
  untold: string[] = [],
): (orgId: string) => Promise<void> {
  return async (orgId) => {
    try {
      await withPublisher(redisUrl, (publisher) => publishOrganizationInvalidation(publisher, orgId));
    } catch (error) {
      untold.push(orgId);
      process.stderr.write(`warning: instances not told to drop cached links (${String(error)})\n`);
    }
  };
}

/**
 * The purged links' Redis copies (link-cache.ts keys them `RECORD_PREFIX` + host, newline, slug, or the
 * bare slug): an instance reads them while the database is away, for a week, and must not find these.
 */
async function dropRecordCopies(
  redisUrl: string,
  orgId: string,
  addresses: { host: string; slug: string }[],
  untold: string[],
): Promise<void> {
  const keys = addresses.map(({ host, slug }) => RECORD_PREFIX + (host === '' ? slug : `${host}\n${slug}`));
  try {
    await withPublisher(redisUrl, async (publisher) => {
      for (let i = 0; i < keys.length; i += 500) await publisher.del(...keys.slice(i, i + 500));
    });
  } catch (error) {
    if (!untold.includes(orgId)) untold.push(orgId);
    process.stderr.write(`warning: the purged links' Redis copies not deleted (${String(error)})\n`);
  }
}

/** One short-lived connection per use: a CLI run publishes once or twice. */
async function withPublisher(redisUrl: string, use: (publisher: Redis) => Promise<unknown>): Promise<void> {
  const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
  // A refused connection rejects connect() below, which says so; ioredis would also print it unhandled.
  publisher.on('error', () => undefined);
  try {
    await publisher.connect();
    await use(publisher);
  } finally {
    publisher.disconnect();
  }
}

/** The one line a script reads. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export class CliError extends Error {}
