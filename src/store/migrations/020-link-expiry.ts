import type { Kysely } from 'kysely';

/**
 * Campaign end dates, click limits and public stats (issue #20). An expiry re-points a link, it never
 * breaks it: `expired_url` is where every visit goes once `expires_at` has passed or `click_count` (human
 * clicks, counted at the click by a conditional update) has reached `max_clicks`. `expired_at` records
 * that the link.expired event was claimed, once, by whichever instance got there first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, type] of [
    ['expires_at', 'varchar(32)'],
    ['expired_url', 'text'],
    ['max_clicks', 'integer'],
    ['expired_at', 'varchar(32)'],
  ] as const) {
    await db.schema.alterTable('links').addColumn(name, type).execute();
  }
  for (const name of ['click_count', 'public_stats']) {
    await db.schema
      .alterTable('links')
      .addColumn(name, 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  }
  // The sweep asks for links whose end date has passed and whose event is not yet claimed.
  await db.schema.createIndex('links_expires_at').on('links').columns(['expires_at', 'expired_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_expires_at').execute();
  for (const name of ['public_stats', 'click_count', 'expired_at', 'max_clicks', 'expired_url', 'expires_at'])
    await db.schema.alterTable('links').dropColumn(name).execute();
}
