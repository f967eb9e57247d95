import type { Kysely } from 'kysely';

/**
 * Sign-ups waiting for their email to be confirmed (issue #17: sign-up must not reveal which emails have
 * accounts, so an account is made only once the mailbox's owner opens the link). Only the link token's
 * hash is kept; the password is already hashed. A row dies with its confirmation or its expiry.
 */
export interface SignupRequestTable {
  token_hash: string;
  email: string;
  password_hash: string;
  org_name: string;
  expires_at: string;
  created_at: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signup_requests')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('org_name', 'varchar(100)', (col) => col.notNull())
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('signup_requests_expires').on('signup_requests').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('signup_requests').execute();
}
