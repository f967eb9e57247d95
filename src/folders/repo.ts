import type { Insertable, Selectable } from 'kysely';
import { dropGroup, folderGroup, lockGroups } from '../analytics/write/group-repo.js';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { FolderTable } from '../store/schema.js';

/** The folders' SQL. Every query takes the organization; writes take the caller's transaction as `ex`. */

export type FolderRow = Selectable<FolderTable>;

export function createFolderRepo(store: Store) {
  const { db } = store;

  return {
    transaction: unitOfWork(db),

    folderOf(orgId: string, id: string): Promise<FolderRow | undefined> {
      return db
        .selectFrom('folders')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Oldest first, each with its number of live (unarchived) links. */
    foldersWithCounts(orgId: string) {
      return db
        .selectFrom('folders')
        .leftJoin('links', (join) =>
          join.onRef('links.folder_id', '=', 'folders.id').on('links.archived_at', 'is', null),
        )
        .select(['folders.id', 'folders.name', 'folders.created_at'])
        .select((eb) => eb.fn.count<number>('links.id').as('link_count'))
        .where('folders.org_id', '=', orgId)
        .groupBy(['folders.id', 'folders.name', 'folders.created_at'])
        .orderBy('folders.created_at', 'asc')
        .execute();
    },

    async insert(folder: Insertable<FolderTable>, ex: Executor = db): Promise<void> {
      await ex.insertInto('folders').values(folder).execute();
    },

    async rename(orgId: string, id: string, name: string, ex: Executor = db): Promise<void> {
      await ex
        .updateTable('folders')
        .set({ name })
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .execute();
    },

    /**
     * Drops the folder's click rollups, under the organization's exclusive group lock on PostgreSQL so
     * the click writer cannot add to the group meanwhile. Run in the transaction that deletes the folder.
     */
    async dropRollups(orgId: string, id: string, ex: Executor): Promise<void> {
      if (store.dialect === 'postgres') await lockGroups(ex, [orgId], 'exclusive');
      await dropGroup(ex, orgId, folderGroup(id));
    },

    /** Its links leave the folder (folder_id null); they are not touched otherwise. */
    async emptyFolder(orgId: string, id: string, ex: Executor = db): Promise<void> {
      await ex
        .updateTable('links')
        .set({ folder_id: null })
        .where('org_id', '=', orgId)
        .where('folder_id', '=', id)
        .execute();
    },

    async delete(orgId: string, id: string, ex: Executor = db): Promise<void> {
      await ex.deleteFrom('folders').where('id', '=', id).where('org_id', '=', orgId).execute();
    },
  };
}

export type FolderRepo = ReturnType<typeof createFolderRepo>;
