import type { Generated, Kysely } from 'kysely';

/** Kysely view of the two tables below; listed in `Database` (src/store/schema.ts). */
export interface BulkActionTable {
  id: string;
  org_id: string;
  /** JSON: the action as the request gave it (`{type: 'add_tags', tags}`...). */
  action: string;
  /** JSON: who asked (the audit log's actor), so each link's audit row names them, not the worker. */
  actor: string | null;
  /** queued, running, done or failed. */
  status: string;
  total: number;
  /** Items handled so far, in position order: a resumed job starts at the next one. */
  processed: Generated<number>;
  changed: Generated<number>;
  failed: Generated<number>;
  /** Which worker runs the job; with claimed_until it makes the claim exclusive across instances. */
  claim_token: string | null;
  claimed_until: string | null;
  /** When a worker last took it: workers serve the organization served longest ago (as imports do). */
  served_at: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface BulkActionItemTable {
  bulk_action_id: string;
  /** 1-based, in the order the selection was frozen. */
  position: number;
  link_id: string;
  /** null until handled; then changed, unchanged or failed. */
  outcome: string | null;
  /** A failed item's error code and message. */
  error: string | null;
  message: string | null;
}

// Bulk actions on links (issue #34): a job row per large action, its selection frozen as one item row per
// link when it is asked for, each item's outcome written as the worker gets to it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bulk_actions')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('actor', 'text')
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('total', 'integer', (col) => col.notNull())
    .addColumn('processed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('changed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('claim_token', 'varchar(36)')
    .addColumn('claimed_until', 'varchar(32)')
    .addColumn('served_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('finished_at', 'varchar(32)')
    .execute();
  await db.schema
    .createIndex('bulk_actions_org_created')
    .on('bulk_actions')
    .columns(['org_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('bulk_actions_status')
    .on('bulk_actions')
    .columns(['status', 'created_at'])
    .execute();

  await db.schema
    .createTable('bulk_action_items')
    .addColumn('bulk_action_id', 'varchar(36)', (col) =>
      col.notNull().references('bulk_actions.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('outcome', 'varchar(16)')
    .addColumn('error', 'varchar(64)')
    .addColumn('message', 'text')
    .addPrimaryKeyConstraint('bulk_action_items_pk', ['bulk_action_id', 'position'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bulk_action_items').execute();
  await db.schema.dropTable('bulk_actions').execute();
}
