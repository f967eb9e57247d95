import { randomUUID } from 'node:crypto';
import { createAccountRepo } from '../accounts/repo.js';
import { type AccountService, createAccountService } from '../accounts/service.js';
import { parseConfig } from '../config.js';
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
    });
    return await run(accounts);
  } finally {
    await store.close();
  }
}

/** The one line a script reads. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export class CliError extends Error {}
