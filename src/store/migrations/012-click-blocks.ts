import { type ColumnType, type Generated, type Kysely, SqliteAdapter } from 'kysely';
import {
  type BlockRow,
  type ClickRow,
  clickColumns,
  packBlocks,
  unpackBlock,
} from './012-click-blocks-format.js';

/**
 * Raw clicks packed one row per link per batch (src/analytics/click-blocks.ts says why): `click_blocks`
 * replaces the row-per-click `clicks` table, whose rows move over unchanged in content.
 */
export interface ClickBlockTable {
  id: Generated<number | string>;
  org_id: string;
  link_id: string;
  /** Epoch milliseconds of the block's first and last click (bigint). */
  first_at: ColumnType<number | string, number, never>;
  last_at: ColumnType<number | string, number, never>;
  humans: number;
  data: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time, not today's types.
type AnyDb = Kysely<any>;

const MOVE_PAGE = 5000;
/** Clicks per block when moving old rows: the size of a batch under load. */
const MOVE_BLOCK = 1000;

export async function up(db: AnyDb): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('click_blocks')
    .addColumn('id', sqlite ? 'integer' : 'bigint', (col) =>
      // AUTOINCREMENT on SQLite: an id is never reused, so a click id never changes meaning.
      sqlite ? col.primaryKey().autoIncrement() : col.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('first_at', 'bigint', (col) => col.notNull())
    .addColumn('last_at', 'bigint', (col) => col.notNull())
    .addColumn('humans', 'integer', (col) => col.notNull())
    .addColumn('data', 'text', (col) => col.notNull())
    .execute();
  // The clicks list walks one link's blocks newest first; the export an organization's oldest first.
  await db.schema
    .createIndex('click_blocks_link')
    .on('click_blocks')
    .columns(['link_id', 'last_at'])
    .execute();
  await db.schema
    .createIndex('click_blocks_org')
    .on('click_blocks')
    .columns(['org_id', 'first_at'])
    .execute();

  // Move the old rows, a page at a time in (link, at, id) order, packed per link.
  let after: { link_id: string; at: number; id: string } | null = null;
  for (;;) {
    let query = db.selectFrom('clicks').selectAll();
    const cursor = after;
    if (cursor) {
      query = query.where((eb) =>
        eb.or([
          eb('link_id', '>', cursor.link_id),
          eb.and([eb('link_id', '=', cursor.link_id), eb('at', '>', cursor.at)]),
          eb.and([eb('link_id', '=', cursor.link_id), eb('at', '=', cursor.at), eb('id', '>', cursor.id)]),
        ]),
      );
    }
    const rows = await query.orderBy('link_id').orderBy('at').orderBy('id').limit(MOVE_PAGE).execute();
    const clicks = rows.map(
      (row): ClickRow => ({ ...(row as ClickRow), at: Number(row.at), bot: row.bot ? 1 : 0 }),
    );
    const blocks: BlockRow[] = [];
    for (let i = 0; i < clicks.length; i += MOVE_BLOCK)
      blocks.push(...packBlocks(clicks.slice(i, i + MOVE_BLOCK)));
    for (const block of blocks) await db.insertInto('click_blocks').values(block).execute();
    const last = rows.at(-1);
    if (!last || rows.length < MOVE_PAGE) break;
    after = { link_id: last.link_id, at: Number(last.at), id: last.id };
  }
  await db.schema.dropTable('clicks').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('clicks')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('org_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('link_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('bot', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('variant', 'integer')
    .addColumn('routed', 'text')
    .addColumn('country', 'varchar(2)')
    .addColumn('city', 'varchar(64)')
    .addColumn('device', 'varchar(16)', (col) => col.notNull())
    .addColumn('source_app', 'varchar(32)')
    .addColumn('referrer_host', 'varchar(253)')
    .addColumn('platform_key', 'varchar(32)')
    .addColumn('tap_id', 'varchar(36)')
    .execute();
  await db.schema.createIndex('clicks_link_at').on('clicks').columns(['link_id', 'at', 'id']).execute();
  await db.schema.createIndex('clicks_org_at').on('clicks').columns(['org_id', 'at', 'id']).execute();
  const blocks = await db.selectFrom('click_blocks').selectAll().execute();
  for (const block of blocks) {
    for (const click of unpackBlock(Number(block.id), Number(block.first_at), block.data)) {
      await db
        .insertInto('clicks')
        .values({
          // Old ids were 36 characters at most: the block id and index fit.
          id: `${click.block}-${click.index}`,
          org_id: block.org_id,
          link_id: block.link_id,
          at: click.at,
          bot: click.bot ? 1 : 0,
          ...clickColumns(click),
        })
        .execute();
    }
  }
  await db.schema.dropTable('click_blocks').execute();
}
