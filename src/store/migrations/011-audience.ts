import type { Generated, Kysely } from 'kysely';

/** Kysely view of the audience tables; the lead adds them to `Database` in src/store/schema.ts. */
export interface ContactTable {
  id: string;
  org_id: string;
  /** Stored lowercased and trimmed, so the unique (org_id, email) index is case-insensitive on both dialects. */
  email: string;
  /** The exact wording the person agreed to, written by the server; blank means never send. */
  consent_text: string;
  source_slug: string | null;
  source_link_id: string | null;
  country: string | null;
  unsubscribed_at: string | null;
  created_at: string;
}

export interface SegmentTable {
  id: string;
  org_id: string;
  name: string;
  /** JSON text of `{sourceSlug?, country?, capturedFrom?, capturedTo?}`. */
  filter: string;
  created_at: string;
}

export type BroadcastStatus = 'draft' | 'sending' | 'sent' | 'failed';

export interface BroadcastTable {
  id: string;
  org_id: string;
  subject: string;
  html: string;
  text: string | null;
  segment_id: string | null;
  status: Generated<BroadcastStatus>;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
}

export type RecipientStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped';

export interface BroadcastRecipientTable {
  id: string;
  broadcast_id: string;
  org_id: string;
  /** Null once the contact is deleted: the row keeps the broadcast's counts, never the address. */
  contact_id: string | null;
  status: Generated<RecipientStatus>;
  /** Machine token for failed and skipped rows (`unsubscribed`, `no_consent`, `smtp_error`...). */
  reason: string | null;
  /** Which worker pass holds the row; with claimed_until it makes a claim exclusive across instances. */
  claim_token: string | null;
  claimed_until: string | null;
  /** SHA-256 of the opaque /u/{token} token mailed to this recipient; the token itself is never stored. */
  unsubscribe_token_hash: string | null;
  sent_at: string | null;
  created_at: string;
}

export interface AudienceTables {
  contacts: ContactTable;
  segments: SegmentTable;
  broadcasts: BroadcastTable;
  broadcast_recipients: BroadcastRecipientTable;
}

// Audience, segments and broadcasts (hosted-service.md sections 2, 3, 4.4, 4.6; decisions.md). Sending is an
// outbox like webhooks: the send call queues one row per recipient, a worker on any instance claims them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('contacts')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('consent_text', 'text', (col) => col.notNull())
    .addColumn('source_slug', 'varchar(64)')
    .addColumn('source_link_id', 'varchar(36)')
    .addColumn('country', 'varchar(2)')
    .addColumn('unsubscribed_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  // The duplicate rule of 4.4 is this index: a repeat insert fails and is treated as a silent no-op.
  await db.schema
    .createIndex('contacts_org_email')
    .on('contacts')
    .columns(['org_id', 'email'])
    .unique()
    .execute();
  await db.schema
    .createIndex('contacts_org_created')
    .on('contacts')
    .columns(['org_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('segments')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('filter', 'text', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('segments_org').on('segments').column('org_id').execute();

  await db.schema
    .createTable('broadcasts')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('subject', 'varchar(200)', (col) => col.notNull())
    .addColumn('html', 'text', (col) => col.notNull())
    .addColumn('text', 'text')
    .addColumn('segment_id', 'varchar(36)')
    .addColumn('status', 'varchar(16)', (col) => col.notNull().defaultTo('draft'))
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('sent_at', 'varchar(32)')
    .execute();
  await db.schema
    .createIndex('broadcasts_org_created')
    .on('broadcasts')
    .columns(['org_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('broadcast_recipients')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('broadcast_id', 'varchar(36)', (col) =>
      col.notNull().references('broadcasts.id').onDelete('cascade'),
    )
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('contact_id', 'varchar(36)')
    .addColumn('status', 'varchar(16)', (col) => col.notNull().defaultTo('queued'))
    .addColumn('reason', 'varchar(64)')
    .addColumn('claim_token', 'varchar(36)')
    .addColumn('claimed_until', 'varchar(32)')
    .addColumn('unsubscribe_token_hash', 'varchar(64)')
    .addColumn('sent_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('broadcast_recipients_status_created')
    .on('broadcast_recipients')
    .columns(['status', 'created_at'])
    .execute();
  await db.schema
    .createIndex('broadcast_recipients_broadcast')
    .on('broadcast_recipients')
    .column('broadcast_id')
    .execute();
  await db.schema
    .createIndex('broadcast_recipients_contact')
    .on('broadcast_recipients')
    .column('contact_id')
    .execute();
  await db.schema
    .createIndex('broadcast_recipients_claim')
    .on('broadcast_recipients')
    .column('claim_token')
    .execute();
  await db.schema
    .createIndex('broadcast_recipients_unsubscribe')
    .on('broadcast_recipients')
    .column('unsubscribe_token_hash')
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('broadcast_recipients').execute();
  await db.schema.dropTable('broadcasts').execute();
  await db.schema.dropTable('segments').execute();
  await db.schema.dropTable('contacts').execute();
}
