import type { Kysely } from 'kysely';

// The self-hosted engine's link store: one row per slug, single tenant.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('engine_links')
    .addColumn('slug', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('platform_key', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('engine_links').execute();
}
