import type { Kysely } from 'kysely';

/** The columns this migration adds to `imports` (ImportTable in 023-imports.ts lists them too). */
export interface ImportFairnessColumns {
  /** When a worker first took the import: its total deadline counts from here, not from the queue. */
  started_at: string | null;
  /** When a worker last took it: workers serve the organization whose imports were served longest ago. */
  served_at: string | null;
}

// Imports are fair and bounded (issue 30): a worker runs an import for a short slice, then takes the import
// of the organization served longest ago; every import has a total deadline from its first claim.
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('imports').addColumn('started_at', 'varchar(32)').execute();
  await db.schema.alterTable('imports').addColumn('served_at', 'varchar(32)').execute();
  await db.schema.createIndex('imports_org_served').on('imports').columns(['org_id', 'served_at']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('imports_org_served').execute();
  await db.schema.alterTable('imports').dropColumn('served_at').execute();
  await db.schema.alterTable('imports').dropColumn('started_at').execute();
}
