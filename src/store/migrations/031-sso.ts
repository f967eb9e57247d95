import type { Kysely } from 'kysely';

/**
 * OpenID Connect single sign-on (issue #34).
 *
 * - `sso_configs`: one identity provider per organization. The client secret is sealed with the secret box
 *   (AES-256-GCM, the org id bound as associated data), never stored in clear. `allowed_domain` is unique:
 *   the log-in page finds an organization by the domain of the email typed, so one domain names one.
 * - `sso_identities`: who a person is at a provider, (issuer, sub), the pair OpenID Connect Core §5.7 says is
 *   stable; a later email change at the provider still finds the same account.
 * - `sso_logins`: a sign-in under way, keyed by the hash of its `state`, with its nonce and PKCE verifier.
 *   The callback deletes the row to claim it, so a state (and the code that came with it) works once.
 */
export interface SsoConfigTable {
  org_id: string;
  issuer: string;
  client_id: string;
  /** The secret box of the client secret (`<keyId>.<base64url>`). */
  client_secret_box: string;
  /** Lower case, no leading `@`: `example.com`. */
  allowed_domain: string;
  /** The role a first sign-in joins with: admin, member or viewer. */
  default_role: string;
  /** 1: password log-in is refused for every member but owners. */
  require_sso: number;
  display_name: string;
  created_at: string;
  updated_at: string;
}

export interface SsoIdentityTable {
  issuer: string;
  subject: string;
  user_id: string;
  /** The organization whose provider linked it (erased with it). */
  org_id: string;
  created_at: string;
}

export interface SsoLoginTable {
  state_hash: string;
  org_id: string;
  nonce: string;
  code_verifier: string;
  expires_at: string;
  created_at: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_configs')
    .addColumn('org_id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('issuer', 'varchar(500)', (col) => col.notNull())
    .addColumn('client_id', 'varchar(255)', (col) => col.notNull())
    .addColumn('client_secret_box', 'text', (col) => col.notNull())
    .addColumn('allowed_domain', 'varchar(253)', (col) => col.notNull())
    .addColumn('default_role', 'varchar(16)', (col) => col.notNull())
    .addColumn('require_sso', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('display_name', 'varchar(60)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('sso_configs_domain')
    .on('sso_configs')
    .column('allowed_domain')
    .unique()
    .execute();
  await db.schema
    .createTable('sso_identities')
    .addColumn('issuer', 'varchar(500)', (col) => col.notNull())
    .addColumn('subject', 'varchar(255)', (col) => col.notNull())
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addPrimaryKeyConstraint('sso_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('sso_identities_user').on('sso_identities').column('user_id').execute();
  await db.schema
    .createTable('sso_logins')
    .addColumn('state_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('nonce', 'varchar(128)', (col) => col.notNull())
    .addColumn('code_verifier', 'varchar(128)', (col) => col.notNull())
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sso_logins_expires').on('sso_logins').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_logins').execute();
  await db.schema.dropTable('sso_identities').execute();
  await db.schema.dropTable('sso_configs').execute();
}
