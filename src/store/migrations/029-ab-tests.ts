import { type Kysely, sql } from 'kysely';

/**
 * A/B tests that conclude (issue #33).
 *
 * - `links.ab_started_at`: when the link's running test began (its variants were set or their URLs
 *   changed); the readout counts whole UTC days from then. Links that already had variants get their
 *   creation time: variant counts exist only while a link has variants.
 * - `links.ab_auto_promote`: the optional rule `{minVisits, confidence}` (JSON) that concludes the test by
 *   itself.
 * - `ab_tests`: one row per concluded test, so its readout stays readable after the link moved on: the
 *   variants as they were, when it ran, which variant won, and whether a person or the rule promoted it.
 *   Unique per (link, start): a test concludes once, whichever instance gets there first.
 */
/** Migration 029's columns on `links`. */
export interface AbTestLinkColumns {
  /** When the running A/B test began; null without variants. */
  ab_started_at: string | null;
  /** The auto-promote rule `{minVisits, confidence}` as JSON, or null. */
  ab_auto_promote: string | null;
}

/** One concluded A/B test. */
export interface AbTestTable {
  id: string;
  org_id: string;
  link_id: string;
  /** The variants `[{u, w}]` as JSON, as they were while the test ran. */
  variants: string;
  started_at: string;
  promoted_at: string;
  promoted_variant: number;
  /** `user` or `auto`. */
  promoted_by: string;
  /** The rule in force, as JSON, or null. */
  auto_promote: string | null;
  /** The readout the promotion was decided on (per variant: visits, outcomes, probability best), as JSON. */
  decision: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('links').addColumn('ab_started_at', 'varchar(32)').execute();
  await db.schema.alterTable('links').addColumn('ab_auto_promote', 'text').execute();
  await sql`update links set ab_started_at = created_at where ab is not null`.execute(db);
  await db.schema
    .createTable('ab_tests')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull().references('links.id').onDelete('cascade'))
    .addColumn('variants', 'text', (col) => col.notNull())
    .addColumn('started_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('promoted_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('promoted_variant', 'integer', (col) => col.notNull())
    .addColumn('promoted_by', 'varchar(8)', (col) => col.notNull())
    .addColumn('auto_promote', 'text')
    .addColumn('decision', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('ab_tests_link_started')
    .on('ab_tests')
    .columns(['link_id', 'started_at'])
    .unique()
    .execute();
  await db.schema
    .createIndex('ab_tests_org_link')
    .on('ab_tests')
    .columns(['org_id', 'link_id', 'promoted_at'])
    .execute();
  // The auto-promote sweep reads the links that carry a rule.
  await db.schema.createIndex('links_ab_auto_promote').on('links').column('ab_auto_promote').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_ab_auto_promote').execute();
  await db.schema.dropTable('ab_tests').execute();
  await db.schema.alterTable('links').dropColumn('ab_auto_promote').execute();
  await db.schema.alterTable('links').dropColumn('ab_started_at').execute();
}
