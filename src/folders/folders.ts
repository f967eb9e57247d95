import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dropGroup, folderGroup, lockGroups } from '../analytics/group-rollups.js';
import type { AuditLog } from '../audit/service.js';
import { appError, featureError } from '../errors.js';
import { errorResponses, idParams, operationIds } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';

/** Folders: schema, store queries, rules and routes of a small domain, in one file. */

const nameSchema = z
  .string()
  .transform((name) => name.trim())
  .pipe(
    z
      .string()
      .min(1, 'Folder names are 1 to 100 characters')
      .max(100, 'Folder names are 1 to 100 characters'),
  );
const folderBody = z.object({ name: nameSchema }).strict();
const folderSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  linkCount: z.number().int(),
  createdAt: z.string(),
});
const renamedSchema = z.object({ id: z.uuid(), name: z.string(), createdAt: z.string() });
const deletedSchema = z.object({ deleted: z.literal(true) });

export type Folder = z.infer<typeof folderSchema>;

export function createFolderService(deps: {
  store: Store;
  now: () => Date;
  uuid: () => string;
  audit?: AuditLog;
}) {
  const { db } = deps.store;
  const requireFolders = (ctx: OrgContext) => {
    if (!ctx.features.folders) throw featureError('folders');
  };
  const find = async (ctx: OrgContext, id: string) => {
    const row = await db
      .selectFrom('folders')
      .selectAll()
      .where('org_id', '=', ctx.orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw appError('not_found', 'No such folder');
    return row;
  };

  return {
    async create(ctx: OrgContext, name: string): Promise<Folder> {
      requireFolders(ctx);
      const folder = { id: deps.uuid(), org_id: ctx.orgId, name, created_at: deps.now().toISOString() };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('folders').values(folder).execute();
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
      const rows = await db
        .selectFrom('folders')
        .leftJoin('links', (join) =>
          join.onRef('links.folder_id', '=', 'folders.id').on('links.archived_at', 'is', null),
        )
        .select(['folders.id', 'folders.name', 'folders.created_at'])
        .select((eb) => eb.fn.count<number>('links.id').as('link_count'))
        .where('folders.org_id', '=', ctx.orgId)
        .groupBy(['folders.id', 'folders.name', 'folders.created_at'])
        .orderBy('folders.created_at', 'asc')
        .execute();
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
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('folders')
          .set({ name })
          .where('id', '=', id)
          .where('org_id', '=', ctx.orgId)
          .execute();
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
      await db.transaction().execute(async (trx) => {
        // Its links leave the folder: the folder's rollups go with them (no other link is in it).
        if (deps.store.dialect === 'postgres') await lockGroups(trx, [ctx.orgId], 'exclusive');
        await dropGroup(trx, ctx.orgId, folderGroup(id));
        await deps.audit?.record(trx, ctx, {
          action: 'folder.deleted',
          target: { type: 'folder', id },
          changes: { name: { from: folder.name, to: null } },
        });
        await trx
          .updateTable('links')
          .set({ folder_id: null })
          .where('org_id', '=', ctx.orgId)
          .where('folder_id', '=', id)
          .execute();
        await trx.deleteFrom('folders').where('id', '=', id).where('org_id', '=', ctx.orgId).execute();
      });
      return { deleted: true };
    },
  };
}

export type FolderService = ReturnType<typeof createFolderService>;

export async function folderRoutes(
  app: FastifyInstance,
  deps: { folders: FolderService; operationPrefix?: string },
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { folders } = deps;
  const op = operationIds(deps.operationPrefix);
  const tags = ['folders'];
  r.post(
    '/folders',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('createFolder'),
        summary: 'Create a folder',
        tags,
        body: folderBody,
        response: { 201: folderSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await folders.create(orgOf(request), request.body.name)),
  );
  r.get(
    '/folders',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: op('listFolders'),
        summary: 'List folders',
        tags,
        response: { 200: z.object({ folders: z.array(folderSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ folders: await folders.list(orgOf(request)) }),
  );
  r.patch(
    '/folders/:id',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('renameFolder'),
        summary: 'Rename a folder',
        tags,
        params: idParams,
        body: folderBody,
        response: { 200: renamedSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => folders.rename(orgOf(request), request.params.id, request.body.name),
  );
  r.delete(
    '/folders/:id',
    {
      config: { permission: 'links:write' },
      schema: {
        operationId: op('deleteFolder'),
        summary: 'Delete a folder',
        tags,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(404) },
      },
    },
    async (request) => folders.remove(orgOf(request), request.params.id),
  );
}
