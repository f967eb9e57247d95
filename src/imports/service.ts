import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import { GuardedFetchError } from '../net/guarded-fetch.js';
import type { OrgContext } from '../tenancy/context.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import { sealParams } from './params.js';
import { type ImportRepo, type ImportRow, MAX_ACTIVE_IMPORTS } from './repo.js';
import type { CreateImportInput, Import, ImportSourceName, ImportStatus } from './schema.js';
import { CSV_MAX_ROWS, readCsv, TOO_MANY_ROWS } from './sources/csv.js';
import { yourlsEndpoint } from './sources/yourls.js';

/** Starting imports and reading their progress; the work itself is the worker's (src/imports/worker.ts). */

export interface ImportServiceDeps {
  repo: ImportRepo;
  secretBox: SecretBox;
  /** The SSRF guard's check of a URL the user gives (src/net/guarded-fetch.ts). */
  checkUrl: (url: string) => Promise<void>;
  now: () => Date;
  uuid: () => string;
  /** Something was queued: a worker may start at once rather than at its next poll. */
  nudge: () => void;
  /** The audit log: an import started by a person or a key, logged with its job row. */
  audit?: AuditLog;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ERRORS_SHOWN = 500;
const RECENT = 20;

function fieldError(field: string, message: string) {
  return appError('invalid_body', `${field}: ${message}`, {
    issues: [{ code: 'custom', path: [field], message }],
  });
}

function summary(row: ImportRow) {
  return {
    id: row.id,
    source: row.source as ImportSourceName,
    status: row.status as ImportStatus,
    total: row.total,
    imported: row.imported,
    skipped: row.skipped,
    failed: row.failed,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

/** The address a source is reached at, for the SSRF check before anything is queued. */
function sourceUrl(input: CreateImportInput): string | null {
  if (input.source === 'yourls') return yourlsEndpoint(input.baseUrl);
  if (input.source === 'csv') return null;
  return input.baseUrl ?? null;
}

export function createImportService(deps: ImportServiceDeps) {
  const { repo } = deps;

  const tooManyImports = () =>
    appError(
      'too_many_imports',
      `This organization already has ${MAX_ACTIVE_IMPORTS} imports queued or running; wait for one to finish`,
    );

  /**
   * Refuses, before queueing, what could never run: an unreadable CSV, one over the row cap (counted in
   * one pass that stops at the cap: nothing is built from its rows), an address the guard refuses.
   */
  async function check(input: CreateImportInput): Promise<number> {
    if (input.source === 'csv') {
      const read = await readCsv(input.csv, { count: 0, max: CSV_MAX_ROWS });
      if (read.kind === 'problem') throw fieldError('csv', read.problem);
      if (read.kind === 'too_many_rows') throw appError('too_many_rows', TOO_MANY_ROWS(read.max));
      return read.rows;
    }
    const url = sourceUrl(input);
    if (url !== null) {
      try {
        await deps.checkUrl(url);
      } catch (error) {
        if (error instanceof GuardedFetchError) throw fieldError('baseUrl', error.message);
        throw error;
      }
    }
    return 0;
  }

  return {
    /**
     * Queues an import (202). The parameters, credentials included, are kept sealed until it ends. At most
     * MAX_ACTIVE_IMPORTS per organization are queued or running (429 too_many_imports). With
     * `claimToken` the caller (the CLI) holds the import from the start and runs it itself.
     */
    async start(
      ctx: OrgContext,
      input: CreateImportInput,
      options: { claimToken?: string; claimedUntil?: string } = {},
    ): Promise<{ id: string }> {
      // Cheap first; checked again, race-free, with the insert.
      if ((await repo.activeCount(ctx.orgId)) >= MAX_ACTIVE_IMPORTS) throw tooManyImports();
      const total = await check(input);
      const id = deps.uuid();
      const now = deps.now().toISOString();
      const held = options.claimToken !== undefined;
      const params = await sealParams(deps.secretBox, input, id);
      const row = {
        id,
        org_id: ctx.orgId,
        source: input.source,
        status: held ? 'running' : 'queued',
        params,
        cursor: null,
        total,
        claim_token: options.claimToken ?? null,
        claimed_until: options.claimedUntil ?? null,
        // Held by the CLI from the start: its deadline runs from now.
        started_at: held ? now : null,
        served_at: held ? now : null,
        created_at: now,
        updated_at: now,
        finished_at: null,
      };
      const inserted = await repo.transaction(async (trx) => {
        if (!(await repo.insert(trx, row))) return false;
        // Source and size only: the parameters hold the source's credentials.
        await deps.audit?.record(trx, ctx, {
          action: 'import.started',
          target: { type: 'import', id },
          changes: { source: input.source, total },
        });
        return true;
      });
      if (!inserted) throw tooManyImports();
      if (!held) deps.nudge();
      return { id };
    },

    async get(ctx: OrgContext, id: string): Promise<Import> {
      const row = UUID.test(id) ? await repo.find(ctx.orgId, id) : undefined;
      if (!row) throw appError('not_found', 'No such import');
      const errors = await repo.errors(row.id, ERRORS_SHOWN);
      return { ...summary(row), errors, errorCount: await repo.errorCount(row.id) };
    },

    async list(ctx: OrgContext): Promise<{ imports: Omit<Import, 'errors'>[] }> {
      const rows = await repo.listRecent(ctx.orgId, RECENT);
      const withCounts = await Promise.all(
        rows.map(async (row) => ({ ...summary(row), errorCount: await repo.errorCount(row.id) })),
      );
      return { imports: withCounts };
    },
  };
}

export type ImportService = ReturnType<typeof createImportService>;
