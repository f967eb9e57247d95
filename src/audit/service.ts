import { v7 as uuidv7 } from 'uuid';
import { csvCell } from '../core/csv.js';
import { appError } from '../errors.js';
import { isWellFormedId } from '../http/edge-text.js';
import type { Executor } from '../store/database.js';
import type { AuditRepo } from './repo.js';
import type { Actor, AuditChange, AuditEntry, AuditFilter, AuditListQuery } from './schema.js';

export interface AuditDeps {
  repo: AuditRepo;
  now: () => Date;
}

/**
 * An audit row's id: a UUIDv7, whose leading time and in-process sequence make ids made one after the other
 * sort in that order. The log lists newest first by time, then by id: two changes in the same millisecond
 * (a plan changed twice by one script) must keep their order, which random ids broke about one time in two.
 */
function newAuditId(): string {
  return uuidv7();
}

/** The organization and who acts in it: what every service already holds as its OrgContext. */
export interface AuditScope {
  orgId: string;
  actor?: Actor;
}

const EXPORT_PAGE = 500;
/** An export is a download, not a backup: past this many rows, narrow it with `action` or `targetId`. */
export const EXPORT_MAX_ROWS = 50_000;
const CSV_HEADER = 'id,at,actor_type,actor_id,actor_label,action,target_type,target_id,changes';

function encodeCursor(entry: AuditEntry): string {
  return Buffer.from(JSON.stringify([entry.at, entry.id])).toString('base64url');
}

/** How `at` is written (Date#toISOString): a cursor's `at` in any other shape is not one we gave out. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The cursor back as the row it names. The edge rule saw only its base64url, and decoded text may hold
 * anything, NUL included, which PostgreSQL refuses with a 500 (issue #30): both halves must be exactly
 * what encodeCursor writes, or the cursor is a 400.
 */
function decodeCursor(cursor: string): { at: string; id: string } {
  const pair = jsonOf(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (Array.isArray(pair) && pair.length === 2) {
    const [at, id] = pair as unknown[];
    if (typeof at === 'string' && typeof id === 'string' && ISO_INSTANT.test(at) && isWellFormedId(id))
      return { at, id };
  }
  throw appError('invalid_query', 'cursor: not a cursor this API gave out');
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The audit log (issue #20). `record` is the seam every service calls inside the transaction of its
 * change, so a change and its row commit together or not at all. A change made by no one (the service
 * itself, a test calling a service directly) has no actor and writes no row.
 */
export function createAuditLog(deps: AuditDeps) {
  const { repo } = deps;

  return {
    async record(ex: Executor, scope: AuditScope, change: AuditChange): Promise<void> {
      const actor = scope.actor;
      if (!actor) return;
      await repo.insert(ex, {
        id: newAuditId(),
        orgId: scope.orgId,
        at: deps.now().toISOString(),
        actor: { type: actor.type, id: actor.id, label: actor.label },
        action: change.action,
        target: change.target,
        changes: change.changes ?? {},
      });
    },

    async list(orgId: string, query: AuditListQuery) {
      const after = query.cursor ? decodeCursor(query.cursor) : undefined;
      const rows = await repo.list(orgId, query, query.limit + 1, after);
      const entries = rows.slice(0, query.limit);
      const last = entries[entries.length - 1];
      return { entries, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
    },

    /** The CSV export, page by page; `changes` is one JSON cell. */
    async *exportCsv(orgId: string, filter: AuditFilter): AsyncGenerator<string> {
      yield `${CSV_HEADER}\r\n`;
      let after: { at: string; id: string } | undefined;
      for (let sent = 0; sent < EXPORT_MAX_ROWS; sent += EXPORT_PAGE) {
        const rows = await repo.list(orgId, filter, EXPORT_PAGE, after);
        if (rows.length > 0) yield rows.map(csvLine).join('');
        const last = rows[rows.length - 1];
        if (!last || rows.length < EXPORT_PAGE) return;
        after = { at: last.at, id: last.id };
      }
    },
  };
}

function csvLine(entry: AuditEntry): string {
  const cells = [
    entry.id,
    entry.at,
    entry.actor.type,
    entry.actor.id,
    entry.actor.label,
    entry.action,
    entry.target.type,
    entry.target.id,
    JSON.stringify(entry.changes),
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export type AuditLog = ReturnType<typeof createAuditLog>;
