import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Destination health (issue #33): every distinct destination of a live link is checked now and then; a
 * link may carry `fallback_url`, where its visits go while its destination is down.
 *
 * - `destinations`: one row per distinct destination URL (keyed by its SHA-256, so a long URL never meets
 *   an index's size limit), shared by every link and organization pointing at it: its state (`unknown`,
 *   `ok`, `down`), the failure streak that may turn it down, when to check it next.
 * - `destination_checks`: the last checks of each destination (the dashboard shows 20).
 * - `health_hosts`: one lease per host, so that one instance at a time checks a host's destinations, at
 *   most one request a second, whatever the number of instances.
 * - `health_digests`: the day of the last "links that went down" mail to an organization (one a day).
 */

const iso = () => new Date().toISOString();
const idOf = (url: string) => createHash('sha256').update(url).digest('hex');
const hostOf = (url: string) => {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
};

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('links').addColumn('fallback_url', 'text').execute();
  // The links of a destination are found by its key (the checker, the digest, ?health=): a URL itself may
  // be too long for an index.
  await db.schema.alterTable('links').addColumn('destination_key', 'varchar(64)').execute();
  await db.schema
    .createTable('destinations')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('host', 'varchar(255)', (col) => col.notNull())
    .addColumn('state', 'varchar(8)', (col) => col.notNull().defaultTo('unknown'))
    .addColumn('since', 'varchar(32)')
    .addColumn('failures', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failing_since', 'varchar(32)')
    .addColumn('checked_at', 'varchar(32)')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'varchar(32)')
    .addColumn('next_check_at', 'varchar(32)', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('destinations_due')
    .on('destinations')
    .columns(['host', 'next_check_at'])
    .execute();
  await db.schema.createIndex('destinations_next').on('destinations').column('next_check_at').execute();
  // `GET /v1/links?health=down` asks for the (few) destinations in a state.
  await db.schema.createIndex('destinations_state').on('destinations').column('state').execute();
  await db.schema
    .createTable('destination_checks')
    .addColumn('destination_id', 'varchar(64)', (col) =>
      col.notNull().references('destinations.id').onDelete('cascade'),
    )
    .addColumn('checked_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('outcome', 'varchar(8)', (col) => col.notNull())
    .addColumn('status', 'integer')
    .addColumn('error', 'varchar(32)')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('destination_checks_pk', ['destination_id', 'checked_at'])
    .execute();
  await db.schema
    .createTable('health_hosts')
    .addColumn('host', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('claimed_until', 'varchar(32)')
    .addColumn('claim_token', 'varchar(64)')
    .execute();
  await db.schema
    .createTable('health_digests')
    .addColumn('org_id', 'varchar(36)', (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('sent_day', 'varchar(10)', (col) => col.notNull())
    .execute();
  // Every link's key, then today's live links' destinations, due at once.
  for (let after = ''; ; ) {
    const links: { id: string; destination: string }[] = await db
      .selectFrom('links')
      .select(['id', 'destination'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (links.length === 0) break;
    for (const link of links) {
      await db
        .updateTable('links')
        .set({ destination_key: idOf(link.destination) })
        .where('id', '=', link.id)
        .execute();
    }
    after = (links.at(-1) as { id: string }).id;
  }
  await db.schema.createIndex('links_destination_key').on('links').column('destination_key').execute();
  const now = iso();
  const rows: { destination: string }[] = await db
    .selectFrom('links')
    .select('destination')
    .distinct()
    .where('archived_at', 'is', null)
    .execute();
  for (let i = 0; i < rows.length; i += 500) {
    const values = rows.slice(i, i + 500).map(({ destination }) => ({
      id: idOf(destination),
      url: destination,
      host: hostOf(destination),
      next_check_at: now,
    }));
    await db
      .insertInto('destinations')
      .values(values)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('health_digests').execute();
  await db.schema.dropTable('health_hosts').execute();
  await db.schema.dropTable('destination_checks').execute();
  await db.schema.dropTable('destinations').execute();
  await db.schema.dropIndex('links_destination_key').execute();
  await db.schema.alterTable('links').dropColumn('destination_key').execute();
  await db.schema.alterTable('links').dropColumn('fallback_url').execute();
}
