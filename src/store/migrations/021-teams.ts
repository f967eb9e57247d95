import { type Kysely, sql } from 'kysely';

/**
 * Teams (issue #20): a person may belong to several organizations, each time with a role. Until now
 * `users.org_id` tied a user to one organization; it stays as the user's first ("home") organization,
 * and `memberships` decides access from here on. Every existing user becomes the owner of the
 * organization they had. Also: the organization a session is working in, named and scoped API keys,
 * invites, password resets, and the mark left by an organization its last owner deleted.
 */
export interface MembershipTable {
  user_id: string;
  org_id: string;
  /** owner | admin | member | viewer */
  role: string;
  created_at: string;
}

export interface InviteTable {
  id: string;
  org_id: string;
  email: string;
  role: string;
  /** SHA-256 of the mailed token: the token itself is never stored. */
  token_hash: string;
  invited_by: string | null;
  expires_at: string;
  created_at: string;
}

export interface PasswordResetTable {
  token_hash: string;
  user_id: string;
  expires_at: string;
  created_at: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('role', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'org_id'])
    .execute();
  await db.schema.createIndex('memberships_org').on('memberships').column('org_id').execute();
  await sql`insert into memberships (user_id, org_id, role, created_at)
            select id, org_id, 'owner', created_at from users`.execute(db);

  // Null: the user's first membership (sessions opened before this migration).
  await db.schema.alterTable('sessions').addColumn('org_id', 'varchar(36)').execute();

  await db.schema
    .alterTable('api_keys')
    .addColumn('name', 'varchar(100)', (col) => col.notNull().defaultTo(''))
    .execute();
  // A JSON array of scopes; ["all"] is what every key could do before scopes existed.
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', 'text', (col) => col.notNull().defaultTo('["all"]'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'varchar(32)').execute();
  await sql`update api_keys set name = 'Key ' || prefix`.execute(db);

  await db.schema
    .createTable('invites')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('email', 'varchar(254)', (col) => col.notNull())
    .addColumn('role', 'varchar(16)', (col) => col.notNull())
    .addColumn('token_hash', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('invited_by', 'varchar(36)')
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('invites_org').on('invites').column('org_id').execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(36)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();

  // Set when the last owner deleted the organization: its links keep redirecting, nothing else is left.
  await db.schema.alterTable('organizations').addColumn('deleted_at', 'varchar(32)').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('deleted_at').execute();
  await db.schema.dropTable('password_resets').execute();
  await db.schema.dropTable('invites').execute();
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
  await db.schema.alterTable('api_keys').dropColumn('name').execute();
  await db.schema.alterTable('sessions').dropColumn('org_id').execute();
  await db.schema.dropTable('memberships').execute();
}
