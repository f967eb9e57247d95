import { z } from 'zod';

export type { Actor } from '../tenancy/context.js';

/** What a service tells the log about one change. `changes` holds changed fields, never secrets. */
export interface AuditChange {
  action: string;
  target: { type: string; id: string };
  changes?: Record<string, unknown>;
}

export const auditEntrySchema = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.object({ type: z.enum(['user', 'key', 'system']), id: z.string(), label: z.string() }),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string() }),
    changes: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof auditEntrySchema>;

const filters = {
  action: z.string().min(1).max(64).optional(),
  targetId: z.string().min(1).max(64).optional(),
};

export const auditListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(200).optional(),
    ...filters,
  })
  .strict();
export type AuditListQuery = z.infer<typeof auditListQuery>;

export const auditExportQuery = z.object(filters).strict();
export type AuditFilter = z.infer<typeof auditExportQuery>;

export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  nextCursor: z.string().nullable(),
});
