import type { Selectable } from 'kysely';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { LinkPreviewTable } from '../store/schema.js';

/** The link previews' SQL: one row per link, read and upserted whole. Callers own the link check. */

export type PreviewRow = Selectable<LinkPreviewTable>;

export function createPreviewRepo(store: Store) {
  const { db } = store;
  return {
    /** One transaction: a preview edit and its audit row commit together. */
    transaction: unitOfWork(db),

    async find(linkId: string, ex: Executor = db): Promise<PreviewRow | undefined> {
      return ex.selectFrom('link_previews').selectAll().where('link_id', '=', linkId).executeTakeFirst();
    },

    async upsert(row: PreviewRow, ex: Executor = db): Promise<void> {
      await ex
        .insertInto('link_previews')
        .values(row)
        .onConflict((conflict) =>
          conflict.column('link_id').doUpdateSet({
            source: row.source,
            scraped: row.scraped,
            custom: row.custom,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },
  };
}

export type PreviewRepo = ReturnType<typeof createPreviewRepo>;
