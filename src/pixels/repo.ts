import type { Insertable, Selectable } from 'kysely';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { PixelTable } from '../store/schema.js';

/** The pixels' SQL. Writes take the caller's transaction as `ex`, so each commits with its audit row. */

export type PixelRow = Selectable<PixelTable>;

export function createPixelRepo(store: Store) {
  const { db } = store;

  return {
    transaction: unitOfWork(db),

    async insert(row: Insertable<PixelTable>, ex: Executor = db): Promise<void> {
      await ex.insertInto('pixels').values(row).execute();
    },

    /** Oldest first. */
    pixelsOf(orgId: string): Promise<PixelRow[]> {
      return db
        .selectFrom('pixels')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'asc')
        .execute();
    },

    async owns(orgId: string, id: string, ex: Executor = db): Promise<boolean> {
      const owned = await ex
        .selectFrom('pixels')
        .select('id')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return owned !== undefined;
    },

    /** Its assignments to links first, then the pixel. */
    async delete(id: string, ex: Executor = db): Promise<void> {
      await ex.deleteFrom('link_pixels').where('pixel_id', '=', id).execute();
      await ex.deleteFrom('pixels').where('id', '=', id).execute();
    },
  };
}

export type PixelRepo = ReturnType<typeof createPixelRepo>;
