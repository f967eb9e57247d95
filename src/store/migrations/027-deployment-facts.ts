import type { Kysely } from 'kysely';

/**
 * What the database knows about the instances that use it (issue #30): a hosted instance started with
 * REDIS_URL records `redis_invalidation`, so an operator command that changes what the instances cache
 * (`linkhop org purge`, `org set-tier`) can tell that it must reach them through Redis too.
 */
export interface DeploymentFactTable {
  name: string;
  value: string;
  updated_at: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deployment_facts')
    .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deployment_facts').execute();
}
