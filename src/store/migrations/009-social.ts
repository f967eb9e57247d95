import { type Generated, type Kysely, sql } from 'kysely';

/** Kysely view of the three tables below; the lead adds them to `Database` in src/store/schema.ts. */
export type SocialAccountStatus = 'active' | 'needs_reconnect' | 'revoked';

export interface SocialAccountTable {
  id: string;
  org_id: string;
  provider: string;
  /** Provider ids overflow JavaScript numbers: text end to end. */
  provider_user_id: string;
  username: string;
  /** Token-vault output; '' once revoked. The token never rests in clear text. */
  token_ciphertext: string;
  status: SocialAccountStatus;
  status_message: string | null;
  expires_at: string;
  /** When the current token was issued: the refresh sweep leaves tokens younger than 24 h alone. */
  token_issued_at: string;
  connected_at: string;
  /** Which sweep pass holds the row; with refresh_claimed_until it makes a refresh exclusive. */
  refresh_claim: string | null;
  refresh_claimed_until: string | null;
  updated_at: string;
}

export interface DmAutomationTable {
  id: string;
  org_id: string;
  account_id: string;
  link_id: string;
  dm_text: string;
  /** JSON text of the cleaned trigger. */
  trigger: string;
  enabled: Generated<number>;
  created_at: string;
  updated_at: string;
}

export type FiringStatus = 'queued' | 'sent' | 'failed' | 'skipped';

export interface DmFiringTable {
  id: string;
  automation_id: string;
  org_id: string;
  /** The comment id or message id that fired the rule; with automation_id, the dedup key. */
  source_id: string;
  status: FiringStatus;
  error: string | null;
  reason: string | null;
  /** The recipient's provider-scoped id (never message text), for the `recipients` count. */
  recipient_id: string | null;
  created_at: string;
  updated_at: string;
}

// DM automations (hosted-service.md sections 2, 3 and 4.5).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('social_accounts')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('provider', 'varchar(16)', (col) => col.notNull())
    .addColumn('provider_user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('username', 'varchar(255)', (col) => col.notNull())
    .addColumn('token_ciphertext', 'text', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('status_message', 'text')
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('token_issued_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('connected_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('refresh_claim', 'varchar(36)')
    .addColumn('refresh_claimed_until', 'varchar(32)')
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  // A provider account is live in at most one organization; revoked rows do not count, so another
  // organization can connect it after a disconnect. Partial unique indexes work on both dialects.
  await sql`create unique index social_accounts_live_user on social_accounts (provider_user_id) where status <> 'revoked'`.execute(
    db,
  );
  await db.schema.createIndex('social_accounts_org').on('social_accounts').column('org_id').execute();
  await db.schema
    .createIndex('social_accounts_expiry')
    .on('social_accounts')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('dm_automations')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('account_id', 'varchar(36)', (col) => col.notNull().references('social_accounts.id'))
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('dm_text', 'text', (col) => col.notNull())
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('enabled', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('dm_automations_account')
    .on('dm_automations')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.createIndex('dm_automations_org').on('dm_automations').column('org_id').execute();

  await db.schema
    .createTable('dm_firings')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('automation_id', 'varchar(36)', (col) =>
      col.notNull().references('dm_automations.id').onDelete('cascade'),
    )
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('source_id', 'varchar(128)', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('error', 'varchar(64)')
    .addColumn('reason', 'text')
    .addColumn('recipient_id', 'varchar(64)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    // Redelivery dedup lives in the database so it holds across restarts and instances.
    .addUniqueConstraint('dm_firings_automation_source', ['automation_id', 'source_id'])
    .execute();
  await db.schema
    .createIndex('dm_firings_automation_created')
    .on('dm_firings')
    .columns(['automation_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dm_firings').execute();
  await db.schema.dropTable('dm_automations').execute();
  await db.schema.dropTable('social_accounts').execute();
}
