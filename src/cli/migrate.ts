import { parseConfig } from '../config.js';
import { migrateToLatest, openStore } from '../store/database.js';

/** `linkhop migrate`: applies pending migrations to DATABASE_URL and prints one JSON line. */
export async function runMigrate(): Promise<void> {
  const config = parseConfig(process.env, 'hosted');
  const store = openStore(config.databaseUrl);
  try {
    const report = await migrateToLatest(store);
    process.stdout.write(
      `${JSON.stringify({ migrated: true, dialect: store.dialect, applied: report.applied })}\n`,
    );
  } finally {
    await store.close();
  }
}
