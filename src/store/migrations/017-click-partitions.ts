import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * PostgreSQL: `click_blocks` becomes a table partitioned by month of `first_at` (issue 19), so retention
 * drops whole partitions (CLICK_RETENTION_DAYS) instead of deleting rows, and a partition's indexes stay
 * the size of one month. The existing rows move over unchanged, ids included; a DEFAULT partition takes
 * any block whose month has no partition yet, so an insert never fails for want of one (the retention job
 * creates them ahead, the writer on demand: src/analytics/click-partitions.ts).
 *
 * Also, because the table is new: no primary key (ids come from a sequence, every read goes by link or by
 * organization, and a third index on the busiest insert was a third of its cost), ids and organization
 * keys compared as bytes, and the packed clicks compressed with lz4 where the server has it (pglz took a
 * third of a batch's insert time).
 *
 * SQLite keeps its table; its retention deletes old blocks in small batches.
 */

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

/** Partitions `click_blocks_pYYYY_MM`, bounds in epoch milliseconds; the name is the contract with the job. */
function monthPartition(year: number, month: number): { name: string; from: number; to: number } {
  const from = Date.UTC(year, month, 1);
  const to = Date.UTC(year, month + 1, 1);
  const start = new Date(from);
  const mm = String(start.getUTCMonth() + 1).padStart(2, '0');
  return { name: `click_blocks_p${start.getUTCFullYear()}_${mm}`, from, to };
}

export async function up(db: AnyDb): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  const lz4 = await sql<{ ok: boolean }>`
    select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`.execute(db);
  const compression = lz4.rows[0]?.ok ? 'compression lz4' : '';

  await sql`alter table click_blocks rename to click_blocks_unpartitioned`.execute(db);
  await sql`alter index click_blocks_link rename to click_blocks_unpartitioned_link`.execute(db);
  await sql`alter index click_blocks_org rename to click_blocks_unpartitioned_org`.execute(db);
  await sql`create sequence click_block_ids as bigint`.execute(db);
  await sql`select setval('click_block_ids', coalesce((select max(id) from click_blocks_unpartitioned), 0) + 1, false)`.execute(
    db,
  );
  await sql
    .raw(
      `create table click_blocks (
        id bigint not null default nextval('click_block_ids'),
        org_id varchar(36) collate "C" not null,
        link_id varchar(36) collate "C" not null,
        first_at bigint not null,
        last_at bigint not null,
        humans integer not null,
        data text ${compression} not null
      ) partition by range (first_at)`,
    )
    .execute(db);
  await sql`alter sequence click_block_ids owned by click_blocks.id`.execute(db);
  await sql`create index click_blocks_link on click_blocks (link_id, last_at)`.execute(db);
  await sql`create index click_blocks_org on click_blocks (org_id, first_at)`.execute(db);
  await sql`create table click_blocks_default partition of click_blocks default`.execute(db);

  // A partition for each month holding data (within three years back) and for this month and the next two.
  const now = new Date();
  const months = new Set<string>();
  const present = await sql<{ y: number; m: number }>`
    select distinct extract(year from t)::int as y, extract(month from t)::int - 1 as m
    from (select to_timestamp(first_at / 1000.0) at time zone 'UTC' as t from click_blocks_unpartitioned) s`.execute(
    db,
  );
  const floor = Date.UTC(now.getUTCFullYear() - 3, now.getUTCMonth(), 1);
  for (const row of present.rows) if (Date.UTC(row.y, row.m, 1) >= floor) months.add(`${row.y}-${row.m}`);
  for (let ahead = 0; ahead < 3; ahead++) months.add(`${now.getUTCFullYear()}-${now.getUTCMonth() + ahead}`);
  for (const key of months) {
    const [year, month] = key.split('-').map(Number) as [number, number];
    const part = monthPartition(year, month);
    await sql
      .raw(
        `create table if not exists ${part.name} partition of click_blocks for values from (${part.from}) to (${part.to})`,
      )
      .execute(db);
  }
  await sql`insert into click_blocks (id, org_id, link_id, first_at, last_at, humans, data)
    select id, org_id, link_id, first_at, last_at, humans, data from click_blocks_unpartitioned`.execute(db);
  await sql`drop table click_blocks_unpartitioned`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter table click_blocks rename to click_blocks_partitioned`.execute(db);
  await sql`alter index click_blocks_link rename to click_blocks_partitioned_link`.execute(db);
  await sql`alter index click_blocks_org rename to click_blocks_partitioned_org`.execute(db);
  await sql`create table click_blocks (id bigint generated by default as identity primary key,
    org_id varchar(36) not null, link_id varchar(36) not null, first_at bigint not null,
    last_at bigint not null, humans integer not null, data text not null)`.execute(db);
  await sql`insert into click_blocks (id, org_id, link_id, first_at, last_at, humans, data)
    select id, org_id, link_id, first_at, last_at, humans, data from click_blocks_partitioned`.execute(db);
  await sql`select setval(pg_get_serial_sequence('click_blocks', 'id'), coalesce((select max(id) from click_blocks), 0) + 1, false)`.execute(
    db,
  );
  await sql`create index click_blocks_link on click_blocks (link_id, last_at)`.execute(db);
  await sql`create index click_blocks_org on click_blocks (org_id, first_at)`.execute(db);
  await sql`drop table click_blocks_partitioned`.execute(db);
}
