import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * PostgreSQL: the rollup tables leave a fifth of each heap page free (issue 19). Every click batch upserts
 * thousands of rollup rows, most of them today's rows again; with room on the page an update stays there
 * (a heap-only tuple: no new index entries, less WAL, and the page's dead versions are pruned in place),
 * where a full page moves each new version elsewhere and adds an entry to the primary key for it. Pages
 * written from now on keep the room; existing ones are not rewritten (that would lock the tables), and
 * old days are rarely updated anyway.
 *
 * SQLite has no such setting: its rows are updated in place.
 */

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

const ROLLUP_TABLES = ['click_rollups', 'org_rollups', 'group_rollups'];

export async function up(db: AnyDb): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const table of ROLLUP_TABLES)
    await sql`alter table ${sql.table(table)} set (fillfactor = 80)`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const table of ROLLUP_TABLES)
    await sql`alter table ${sql.table(table)} reset (fillfactor)`.execute(db);
}
