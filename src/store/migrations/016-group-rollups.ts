import { type ColumnType, type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Rollups per folder and per tag (issue 19): the same counts as `org_rollups` (day rows, 7-day rows whose
 * dimension ends in '/w', a `link` dimension per link) for the links of one folder or one tag, so a
 * filtered read sums a few rows per value instead of every per-link row of every link in the filter.
 * `grp` is 'f:<folder id>' or 't:<tag>'. The batch writer keeps them (src/analytics/group-rollups.ts), a
 * link changing folder or tags moves its per-link rows from old groups to new in the same transaction, and
 * `link_group_versions` tells every writer's cache of link -> groups that an organization's groups changed.
 *
 * On PostgreSQL the key columns of the rollup tables compare bytes (collate "C"): they are ids and short
 * codes nobody sorts for display, and a byte compare halves the cost of each upsert's index descent.
 */
export interface GroupRollupTable {
  org_id: string;
  grp: string;
  day: number;
  dimension: string;
  value: string;
  count: ColumnType<number | string, number, number>;
}

export interface LinkGroupVersionTable {
  org_id: string;
  version: number;
}

export interface GroupRollupTables {
  group_rollups: GroupRollupTable;
  link_group_versions: LinkGroupVersionTable;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

/** Per-link dimensions with no organization-level twin (a variant number only means something per link). */
const LINK_ONLY = `('variant', 'variant_outcome')`;

/** The backfill: every per-link row counted into its link's folder, or into each of its tags. */
async function backfill(db: AnyDb, members: string): Promise<void> {
  // `members` yields (link_id, grp); each shape below is one insert (the table starts empty). Grouped by
  // position: PostgreSQL refuses a constant ('link') in GROUP BY.
  const shapes = [
    `r.dimension, r.day, r.value`,
    `r.dimension || '/w', r.day - r.day % 7, r.value`,
    `'link', r.day, r.link_id`,
    `'link/w', r.day - r.day % 7, r.link_id`,
  ];
  for (const [i, shape] of shapes.entries()) {
    const filter = i < 2 ? `r.dimension not in ${LINK_ONLY}` : `r.dimension = 'total'`;
    await sql
      .raw(
        `insert into group_rollups (org_id, grp, dimension, day, value, count)
         select r.org_id, m.grp, ${shape}, sum(r.count) from click_rollups r
         join (${members}) m on m.link_id = r.link_id
         where ${filter}
         group by 1, 2, 3, 4, 5`,
      )
      .execute(db);
  }
}

export async function up(db: AnyDb): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const text = (length: number) => (sqlite ? `varchar(${length})` : `varchar(${length}) collate "C"`);
  await db.schema
    .createTable('group_rollups')
    .addColumn('org_id', sql.raw(text(36)), (col) => col.notNull())
    .addColumn('grp', sql.raw(text(70)), (col) => col.notNull())
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('dimension', sql.raw(text(24)), (col) => col.notNull())
    .addColumn('value', sql.raw(text(253)), (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('group_rollups_pk', ['org_id', 'grp', 'dimension', 'day', 'value'])
    .modifyEnd(sqlite ? sql`without rowid` : sql``)
    .execute();
  await db.schema
    .createTable('link_group_versions')
    .addColumn('org_id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('version', 'integer', (col) => col.notNull())
    .execute();

  await backfill(db, `select id as link_id, 'f:' || folder_id as grp from links where folder_id is not null`);
  await backfill(db, `select link_id, 't:' || tag as grp from link_tags`);

  if (!sqlite) {
    // Byte-compared keys for the two older rollup tables (their primary keys are rebuilt once, here).
    for (const [table, columns] of [
      ['click_rollups', ['org_id', 'link_id', 'dimension', 'value']],
      ['org_rollups', ['org_id', 'dimension', 'value']],
    ] as const) {
      const sizes: Record<string, number> = { org_id: 36, link_id: 36, dimension: 24, value: 253 };
      const changes = columns.map((c) => `alter column ${c} type ${text(sizes[c] ?? 253)}`).join(', ');
      await sql.raw(`alter table ${table} ${changes}`).execute(db);
    }
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('link_group_versions').execute();
  await db.schema.dropTable('group_rollups').execute();
}
