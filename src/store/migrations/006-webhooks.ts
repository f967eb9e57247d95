import type { Generated, Kysely } from 'kysely';

/** Kysely view of the two tables below; the lead adds them to `Database` in src/store/schema.ts. */
export interface WebhookTable {
  id: string;
  org_id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  /** SecretBox output: the signing secret never rests in clear text. */
  secret_ciphertext: string;
  active: Generated<number>;
  fail_count: Generated<number>;
  last_delivered_at: string | null;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  org_id: string;
  event: string;
  /** JSON text of the envelope's `data`, serialized once at emit; the envelope adds `ts` at send time. */
  payload: string;
  status: Generated<DeliveryStatus>;
  /** Which worker pass holds the row; with claimed_until it makes a claim exclusive across instances. */
  claim_token: string | null;
  claimed_until: string | null;
  /** Set just before the POST: a row with it set is never sent again (single attempt, even after a crash). */
  attempted_at: string | null;
  response_status: number | null;
  created_at: string;
}

// Outbound webhooks (hosted-service.md sections 2, 3 and 6). Deliveries are an outbox: emit inserts rows in
// the request, a worker on any instance claims and sends them, so a slow receiver never slows an API call.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull().references('organizations.id'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('events', 'text', (col) => col.notNull())
    .addColumn('secret_ciphertext', 'text', (col) => col.notNull())
    .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('fail_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_delivered_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').column('org_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('webhook_id', 'varchar(36)', (col) =>
      col.notNull().references('webhooks.id').onDelete('cascade'),
    )
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('event', 'varchar(32)', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull().defaultTo('pending'))
    .addColumn('claim_token', 'varchar(36)')
    .addColumn('claimed_until', 'varchar(32)')
    .addColumn('attempted_at', 'varchar(32)')
    .addColumn('response_status', 'integer')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  // The claim scans pending rows oldest first; finished rows are only touched by the retention prune.
  await db.schema
    .createIndex('webhook_deliveries_status_created')
    .on('webhook_deliveries')
    .columns(['status', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_claim')
    .on('webhook_deliveries')
    .column('claim_token')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .column('webhook_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
