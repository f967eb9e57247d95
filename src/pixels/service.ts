import type { AuditLog } from '../audit/service.js';
import { appError, featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { createPixelRepo } from './repo.js';
import type { Pixel, PixelInput } from './schema.js';

export interface PixelServiceDeps {
  store: Store;
  now: () => Date;
  uuid: () => string;
  /** Drops the organization's compiled links on every instance: escape pages inject their pixels. */
  invalidateOrganization: (orgId: string) => void;
  audit?: AuditLog;
}

/** Ad pixels: the plan gate, the audit rows, and the cache drop a removal needs. */
export function createPixelService(deps: PixelServiceDeps) {
  const repo = createPixelRepo(deps.store);
  return {
    async create(ctx: OrgContext, input: PixelInput): Promise<Pixel> {
      if (!ctx.features.pixelInjection) throw featureError('pixelInjection');
      const pixel = {
        id: deps.uuid(),
        type: input.type,
        pixelId: input.pixelId,
        name: input.name,
        createdAt: deps.now().toISOString(),
      };
      await repo.transaction(async (trx) => {
        await repo.insert(
          {
            id: pixel.id,
            org_id: ctx.orgId,
            type: pixel.type,
            pixel_id: pixel.pixelId,
            name: pixel.name,
            created_at: pixel.createdAt,
          },
          trx,
        );
        await deps.audit?.record(trx, ctx, {
          action: 'pixel.created',
          target: { type: 'pixel', id: pixel.id },
          changes: { type: pixel.type, pixelId: pixel.pixelId, name: pixel.name },
        });
      });
      return pixel;
    },

    async list(ctx: OrgContext): Promise<Pixel[]> {
      const rows = await repo.pixelsOf(ctx.orgId);
      return rows.map((row) => ({
        id: row.id,
        type: row.type as Pixel['type'],
        pixelId: row.pixel_id,
        name: row.name,
        createdAt: row.created_at,
      }));
    },

    /** Removes the pixel from every link's pixelIds (the assignment rows cascade) and deletes it. */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      const deleted = await repo.transaction(async (trx) => {
        if (!(await repo.owns(ctx.orgId, id, trx))) return false;
        await repo.delete(id, trx);
        await deps.audit?.record(trx, ctx, { action: 'pixel.deleted', target: { type: 'pixel', id } });
        return true;
      });
      if (!deleted) throw appError('not_found', 'No such pixel');
      deps.invalidateOrganization(ctx.orgId);
      return { deleted: true };
    },
  };
}

export type PixelService = ReturnType<typeof createPixelService>;
