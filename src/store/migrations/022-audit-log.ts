import type { Kysely } from 'kysely';

/**
 * The audit log (issue #20): one row per change by a person or a key, written in the transaction of the
 * change. No foreign key to the organization: the rows are erased with it, explicitly.
 */
export interface AuditLogTable {
  id: string;
  org_id: string;
  at: string;
  /** user | key */
  actor_type: string;
  actor_id: string;
  /** The email or key name at the time: the row still reads after the person or key is gone. */
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string;
  /** JSON object of changed fields; never a secret or a password. */
  changes: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('at', 'varchar(32)', (col) => col.notNull())
    .addColumn('actor_type', 'varchar(8)', (col) => col.notNull())
    .addColumn('actor_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('actor_label', 'varchar(254)', (col) => col.notNull())
    .addColumn('action', 'varchar(64)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(32)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('changes', 'text', (col) => col.notNull())
    .execute();
  // Newest first within an organization, the page's and the cursor's order.
  await db.schema.createIndex('audit_log_org_at').on('audit_log').columns(['org_id', 'at', 'id']).execute();
  await db.schema
    .createIndex('audit_log_org_target')
    .on('audit_log')
    .columns(['org_id', 'target_id'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
