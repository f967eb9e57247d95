import type { Kysely } from 'kysely';

// A link's preview (Open Graph): what the destination says, and the creator's override.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('link_previews')
    .addColumn('link_id', 'varchar(36)', (col) => col.primaryKey().references('links.id').onDelete('cascade'))
    .addColumn('source', 'varchar(16)', (col) => col.notNull())
    .addColumn('scraped', 'text')
    .addColumn('custom', 'text')
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_previews').execute();
}
