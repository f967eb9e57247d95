import type { Executor, Store } from '../store/database.js';
import type { AuditEntry, AuditFilter } from './schema.js';

export interface AuditRow extends AuditEntry {
  orgId: string;
}

/** The audit log's SQL: rows are only ever inserted (in the caller's transaction) and read back. */
export function createAuditRepo(store: Store) {
  const { db } = store;

  return {
    async insert(ex: Executor, row: AuditRow): Promise<void> {
      await ex
        .insertInto('audit_log')
        .values({
          id: row.id,
          org_id: row.orgId,
          at: row.at,
          actor_type: row.actor.type,
          actor_id: row.actor.id,
          actor_label: row.actor.label,
          action: row.action,
          target_type: row.target.type,
          target_id: row.target.id,
          changes: JSON.stringify(row.changes),
        })
        .execute();
    },

    /** Newest first, strictly after `after` (the last row of the previous page) when given. */
    async list(
      orgId: string,
      filter: AuditFilter,
      limit: number,
      after?: { at: string; id: string },
    ): Promise<AuditEntry[]> {
      let query = db.selectFrom('audit_log').selectAll().where('org_id', '=', orgId);
      if (filter.action) query = query.where('action', '=', filter.action);
      if (filter.targetId) query = query.where('target_id', '=', filter.targetId);
      if (after) {
        query = query.where((eb) =>
          eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]),
        );
      }
      const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map((row) => ({
        id: row.id,
        at: row.at,
        actor: { type: row.actor_type as 'user' | 'key', id: row.actor_id, label: row.actor_label },
        action: row.action,
        target: { type: row.target_type, id: row.target_id },
        changes: JSON.parse(row.changes) as Record<string, unknown>,
      }));
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
