import { type Kysely, sql } from 'kysely';

/**
 * Keys record who made them (issue #30): removing a member, their leaving, or their role dropping below
 * admin revokes the keys they made, so nobody keeps an organization's API after losing their seat.
 * `created_by` is the person (a key made by a key inherits its maker); `org_owned` marks the
 * organization's own keys (the CLI's, organization creation's, or an owner's marked so), which survive.
 *
 * Existing keys: the maker is read from the audit log's `key.created` row (a person, or one level of a
 * key made by a key); a key with no such row (made by the CLI or before the audit log) is the
 * organization's own, and shows as such.
 */

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by', 'varchar(36)').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('org_owned', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update api_keys set created_by = (
      select a.actor_id from audit_log a
      where a.action = 'key.created' and a.target_id = api_keys.id and a.org_id = api_keys.org_id
        and a.actor_type = 'user' and a.actor_id <> 'operator'
      order by a.at limit 1)`.execute(db);
  await sql`update api_keys set created_by = (
      select parent.created_by from audit_log a join api_keys parent on parent.id = a.actor_id
      where a.action = 'key.created' and a.target_id = api_keys.id and a.org_id = api_keys.org_id
        and a.actor_type = 'key'
      order by a.at limit 1)
    where created_by is null`.execute(db);
  await sql`update api_keys set org_owned = 1 where created_by is null`.execute(db);
  await db.schema
    .createIndex('api_keys_created_by')
    .on('api_keys')
    .columns(['org_id', 'created_by'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('api_keys_created_by').execute();
  await db.schema.alterTable('api_keys').dropColumn('org_owned').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by').execute();
}
