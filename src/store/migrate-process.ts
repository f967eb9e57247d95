import { migrateToLatest, openStore } from './database.js';

/**
 * A process that migrates DATABASE_URL and exits (store/migrate-apart.ts starts it): one JSON line on
 * stdout when done, the reason on stderr and exit code 1 when not.
 */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const store = openStore(url, { maxConnections: 1 });
  try {
    const report = await migrateToLatest(store);
    process.stdout.write(`${JSON.stringify({ migrated: true, applied: report.applied })}\n`);
  } finally {
    await store.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
