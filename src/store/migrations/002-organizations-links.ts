import type { Kysely } from 'kysely';

// The hosted service's tenants and their links; later migrations add the link powers.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('tier', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('links')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('host', 'varchar(253)', (col) => col.notNull().defaultTo(''))
    .addColumn('slug', 'varchar(32)', (col) => col.notNull())
    .addColumn('destination', 'text', (col) => col.notNull())
    .addColumn('platform_key', 'varchar(32)')
    .addColumn('archived_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(1))
    .addUniqueConstraint('links_host_slug_unique', ['host', 'slug'])
    .execute();

  await db.schema.createIndex('links_org_created').on('links').columns(['org_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('links').execute();
  await db.schema.dropTable('organizations').execute();
}
