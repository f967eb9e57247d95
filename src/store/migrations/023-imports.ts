import type { Generated, Kysely } from 'kysely';

/** Kysely view of the three tables below; listed in `Database` (src/store/schema.ts). */
export interface ImportTable {
  id: string;
  org_id: string;
  /** csv, bitly, shlink, kutt, dub or yourls. */
  source: string;
  /** queued, running, done or failed. */
  status: string;
  /** SecretBox of the source's JSON parameters (credentials, the CSV text); erased once the import ends. */
  params: string | null;
  /** JSON: where the next page starts, so an import taken over after a restart resumes there. */
  cursor: string | null;
  total: Generated<number>;
  imported: Generated<number>;
  skipped: Generated<number>;
  failed: Generated<number>;
  /** Which worker runs the import; with claimed_until it makes the claim exclusive across instances. */
  claim_token: string | null;
  claimed_until: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface ImportErrorTable {
  import_id: string;
  position: number;
  item: string;
  reason: string;
}

export interface ImportItemTable {
  org_id: string;
  source: string;
  /** The item's identity at the source (`bit.ly/abc`, a Kutt link id...): a re-run skips what it finds. */
  source_key: string;
  import_id: string;
  link_id: string;
  /** Visits the source had counted (Shlink, Kutt, Dub, YOURLS, Bitly gives none in its list). */
  source_visits: number | null;
  created_at: string;
}

// Imports from other shorteners (issue 21). A job row per import, claimed by one worker at a time and
// resumable from its cursor; the item table remembers every source id imported, per organization.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('imports')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('source', 'varchar(16)', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('params', 'text')
    .addColumn('cursor', 'text')
    .addColumn('total', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('imported', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('claim_token', 'varchar(36)')
    .addColumn('claimed_until', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('finished_at', 'varchar(32)')
    .execute();
  await db.schema
    .createIndex('imports_org_created')
    .on('imports')
    .columns(['org_id', 'created_at'])
    .execute();
  await db.schema.createIndex('imports_status').on('imports').columns(['status', 'created_at']).execute();

  await db.schema
    .createTable('import_errors')
    .addColumn('import_id', 'varchar(36)', (col) =>
      col.notNull().references('imports.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('item', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('import_errors_pk', ['import_id', 'position'])
    .execute();

  await db.schema
    .createTable('import_items')
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('source', 'varchar(16)', (col) => col.notNull())
    .addColumn('source_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('import_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('source_visits', 'integer')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addPrimaryKeyConstraint('import_items_pk', ['org_id', 'source', 'source_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('import_items').execute();
  await db.schema.dropTable('import_errors').execute();
  await db.schema.dropTable('imports').execute();
}
