import type { Generated, Kysely } from 'kysely';

/** Kysely view of the creator-pages tables; the lead adds `BioTables` to `Database` in src/store/schema.ts. */
export interface BioPageTable {
  id: string;
  org_id: string;
  /** Stored already lowercased: the plain UNIQUE below is then unique case-insensitively on both dialects. */
  handle: string;
  title: string;
  bio: string | null;
  avatar_url: string | null;
  /** JSON `{bg, ink, accent}` or null. */
  theme: string | null;
  /** JSON array of blocks; one column, so replacing the list is one atomic UPDATE. */
  blocks: string;
  published: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface MediaKitTable {
  page_id: string;
  org_id: string;
  published: Generated<number>;
  /** JSON `{taps, appOpenRate, platforms, topLinks, trend}` of booleans, rebuilt in full on each save. */
  show: string;
  created_at: string;
  updated_at: string;
}

export interface BioTables {
  bio_pages: BioPageTable;
  media_kits: MediaKitTable;
}

// Bio page and media kit (hosted-service.md sections 2, 3, 4.2, 4.3). One page per organization.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bio_pages')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().unique().references('organizations.id'))
    .addColumn('handle', 'varchar(30)', (col) => col.notNull().unique())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('bio', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('theme', 'text')
    .addColumn('blocks', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('published', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();

  // The kit lives and dies with its bio page: deleting the page removes the kit too.
  await db.schema
    .createTable('media_kits')
    .addColumn('page_id', 'varchar(36)', (col) =>
      col.primaryKey().references('bio_pages.id').onDelete('cascade'),
    )
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().unique())
    .addColumn('published', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('show', 'text', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('media_kits').execute();
  await db.schema.dropTable('bio_pages').execute();
}
