import type { AuditLog } from '../audit/service.js';
import { appError, featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { createFolderRepo } from './repo.js';
import type { Folder } from './schema.js';

/** Folders: their rules (the plan gate, the audit rows) over the repo's queries. */

export function createFolderService(deps: {
  store: Store;
  now: () => Date;
  uuid: () => string;
  audit?: AuditLog;
}) {
  const repo = createFolderRepo(deps.store);
  const requireFolders = (ctx: OrgContext) => {
    if (!ctx.features.folders) throw featureError('folders');
  };
  const find = async (ctx: OrgContext, id: string) => {
    const row = await repo.folderOf(ctx.orgId, id);
    if (!row) throw appError('not_found', 'No such folder');
    return row;
  };

  return {
    async create(ctx: OrgContext, name: string): Promise<Folder> {
      requireFolders(ctx);
      const folder = { id: deps.uuid(), org_id: ctx.orgId, name, created_at: deps.now().toISOString() };
      await repo.transaction(async (trx) => {
        await repo.insert(folder, trx);
        await deps.audit?.record(trx, ctx, {
          action: 'folder.created',
          target: { type: 'folder', id: folder.id },
          changes: { name: { from: null, to: name } },
        });
      });
      return { id: folder.id, name, linkCount: 0, createdAt: folder.created_at };
    },

    /** Every folder with the number of live links in it; readable on every plan. */
    async list(ctx: OrgContext): Promise<Folder[]> {
      const rows = await repo.foldersWithCounts(ctx.orgId);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        linkCount: Number(row.link_count),
        createdAt: row.created_at,
      }));
    },

    async rename(ctx: OrgContext, id: string, name: string) {
      requireFolders(ctx);
      const row = await find(ctx, id);
      await repo.transaction(async (trx) => {
        await repo.rename(ctx.orgId, id, name, trx);
        await deps.audit?.record(trx, ctx, {
          action: 'folder.renamed',
          target: { type: 'folder', id },
          changes: { name: { from: row.name, to: name } },
        });
      });
      return { id: row.id, name, createdAt: row.created_at };
    },

    /** The folder goes; its links stay, with folderId null. No plan gate: a downgrade can still tidy up. */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      const folder = await find(ctx, id);
      await repo.transaction(async (trx) => {
        // Its links leave the folder: the folder's rollups go with them (no other link is in it).
        await repo.dropRollups(ctx.orgId, id, trx);
        await deps.audit?.record(trx, ctx, {
          action: 'folder.deleted',
          target: { type: 'folder', id },
          changes: { name: { from: folder.name, to: null } },
        });
        await repo.emptyFolder(ctx.orgId, id, trx);
        await repo.delete(ctx.orgId, id, trx);
      });
      return { deleted: true };
    },
  };
}

export type FolderService = ReturnType<typeof createFolderService>;
