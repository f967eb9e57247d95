import type { Kysely } from 'kysely';

// The Ed25519 key that signs permanence receipts: generated once, shared by every instance.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('purpose', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('key_id', 'varchar(32)', (col) => col.notNull())
    .addColumn('private_key', 'text', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('signing_keys').execute();
}
