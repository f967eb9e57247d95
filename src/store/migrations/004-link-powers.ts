import type { Kysely } from 'kysely';

// The link powers of hosted-service.md section 2, folders and pixels. Structured powers are JSON text
// (read whole, written whole); tags and pixel assignments are rows so they can be filtered and so a
// deleted pixel leaves every link by cascade.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('folders')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('folders_org').on('folders').column('org_id').execute();

  await db.schema
    .createTable('pixels')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('type', 'varchar(16)', (col) => col.notNull())
    .addColumn('pixel_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('pixels_org').on('pixels').column('org_id').execute();

  for (const [name, type] of [
    ['utm', 'text'],
    ['routing', 'text'],
    ['ab', 'text'],
    ['sched', 'text'],
    ['password_hash', 'text'],
    ['folder_id', 'varchar(36)'],
  ] as const) {
    await db.schema.alterTable('links').addColumn(name, type).execute();
  }
  await db.schema
    .alterTable('links')
    .addColumn('capture_emails', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('links')
    .addColumn('read_only', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('links_org_folder').on('links').columns(['org_id', 'folder_id']).execute();

  await db.schema
    .createTable('link_tags')
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull().references('links.id').onDelete('cascade'))
    .addColumn('tag', 'varchar(64)', (col) => col.notNull())
    .addPrimaryKeyConstraint('link_tags_pk', ['link_id', 'tag'])
    .execute();
  await db.schema.createIndex('link_tags_tag').on('link_tags').column('tag').execute();

  await db.schema
    .createTable('link_pixels')
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull().references('links.id').onDelete('cascade'))
    .addColumn('pixel_id', 'varchar(36)', (col) => col.notNull().references('pixels.id').onDelete('cascade'))
    .addColumn('position', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('link_pixels_pk', ['link_id', 'pixel_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('link_pixels').execute();
  await db.schema.dropTable('link_tags').execute();
  await db.schema.dropTable('pixels').execute();
  await db.schema.dropTable('folders').execute();
}
