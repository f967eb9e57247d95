import { AppError, appError, featureError } from '../errors.js';
import type { Actor, OrgContext } from '../tenancy/context.js';
import type { BulkActionRepo, BulkActionRow } from './bulk-repo.js';
import {
  BULK_SELECTION_MAX,
  BULK_SYNC_MAX,
  type BulkAction,
  type BulkActionInput,
  type BulkActionJob,
  type BulkItemResult,
  type BulkOutcome,
  type BulkSelection,
  type BulkStatus,
} from './bulk-schema.js';
import type { Link } from './schema.js';
import type { LinkService } from './service.js';

/**
 * Bulk actions (issue #34): one change made to many links, each link through the link service exactly as
 * a single write makes it (its checks, its `link.updated` or `link.archived` event, its one audit row).
 * A link already as the action would leave it is not written at all (`unchanged`): so a job resumed after
 * a crash, which may meet a link it had changed just before, never writes or audits that link twice.
 */

const MAX_TAGS = 20;

export interface BulkActionServiceDeps {
  repo: BulkActionRepo;
  links: Pick<LinkService, 'get' | 'list' | 'update' | 'archive' | 'unarchive'>;
  folderExists: (orgId: string, folderId: string) => Promise<boolean>;
  now: () => Date;
  uuid: () => string;
  /** A job was queued: the worker runs it now rather than at its next poll. */
  nudge: () => void;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value) => b.includes(value));

function tagsError(count: number): AppError {
  const message = `At most ${MAX_TAGS} tags: the link would have ${count}`;
  return appError('invalid_body', message, { issues: [{ code: 'custom', path: ['tags'], message }] });
}

/** Makes `action` on one link; `unchanged` when the link already is as it would leave it. */
export async function applyToLink(
  links: BulkActionServiceDeps['links'],
  ctx: OrgContext,
  action: BulkAction,
  link: Link,
): Promise<BulkOutcome> {
  switch (action.type) {
    case 'add_tags':
    case 'remove_tags': {
      const next =
        action.type === 'add_tags'
          ? [...new Set([...link.tags, ...action.tags])]
          : link.tags.filter((tag) => !action.tags.includes(tag));
      if (sameSet(next, link.tags)) return 'unchanged';
      if (next.length > MAX_TAGS) throw tagsError(next.length);
      await links.update(ctx, link.id, { tags: next });
      return 'changed';
    }
    case 'move':
      if (link.folderId === action.folderId) return 'unchanged';
      await links.update(ctx, link.id, { folderId: action.folderId });
      return 'changed';
    case 'archive':
      if (link.archived) return 'unchanged';
      await links.archive(ctx, link.id);
      return 'changed';
    case 'unarchive':
      if (!link.archived) return 'unchanged';
      await links.unarchive(ctx, link.id);
      return 'changed';
  }
}

/** One link's outcome; an error the caller made (4xx) is that link's result, anything else is thrown. */
export async function runOnLink(
  links: BulkActionServiceDeps['links'],
  ctx: OrgContext,
  action: BulkAction,
  linkId: string,
): Promise<BulkItemResult> {
  try {
    const link = await links.get(ctx, linkId);
    return { linkId, outcome: await applyToLink(links, ctx, action, link) };
  } catch (error) {
    // Only a refusal (4xx) is the link's own outcome; the store failing or a bug stops the whole action.
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return { linkId, outcome: 'failed', error: error.toBody() };
  }
}

const countOf = (results: BulkItemResult[], outcome: BulkOutcome) =>
  results.filter((result) => result.outcome === outcome).length;

/** The actor as the job row keeps it: the audit rows the worker writes name whoever asked. */
export function parseActor(json: string | null): Actor | undefined {
  return json ? (JSON.parse(json) as Actor) : undefined;
}

export function createBulkActionService(deps: BulkActionServiceDeps) {
  const { repo, links } = deps;

  /** The selection frozen now: the ids named (each once, in order), or those matching the filter. */
  async function freeze(ctx: OrgContext, selection: BulkSelection): Promise<string[]> {
    if ('ids' in selection) return [...new Set(selection.ids)];
    const matching = await links.list(ctx, selection.filter);
    if (matching.length > BULK_SELECTION_MAX)
      throw appError(
        'invalid_body',
        `The filter matches ${matching.length} links; one action takes at most ${BULK_SELECTION_MAX}: narrow it`,
      );
    return matching.map((link) => link.id);
  }

  async function checkAction(ctx: OrgContext, action: BulkAction): Promise<void> {
    if (action.type !== 'move' || action.folderId === null) return;
    if (!ctx.features.folders) throw featureError('folders');
    if (!(await deps.folderExists(ctx.orgId, action.folderId))) {
      const message = 'No such folder';
      throw appError('invalid_body', message, {
        issues: [{ code: 'custom', path: ['action', 'folderId'], message }],
      });
    }
  }

  function shown(row: BulkActionRow, results: BulkItemResult[]): BulkActionJob {
    return {
      id: row.id,
      action: JSON.parse(row.action) as BulkAction,
      status: row.status as BulkStatus,
      total: row.total,
      processed: row.processed,
      changed: row.changed,
      unchanged: row.processed - row.changed - row.failed,
      failed: row.failed,
      results,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
    };
  }

  return {
    /**
     * Up to BULK_SYNC_MAX links: changed now, one after the other, and the answer says how each went.
     * More: a job of the frozen selection, queued for the worker; the answer is its state (`queued`).
     */
    async start(ctx: OrgContext, input: BulkActionInput): Promise<{ job: BulkActionJob; queued: boolean }> {
      if (!ctx.features.bulkCreate) throw featureError('bulkCreate');
      await checkAction(ctx, input.action);
      const ids = await freeze(ctx, input.selection);
      const createdAt = deps.now().toISOString();
      if (ids.length <= BULK_SYNC_MAX) {
        const results: BulkItemResult[] = [];
        for (const id of ids) results.push(await runOnLink(links, ctx, input.action, id));
        const failed = countOf(results, 'failed');
        const changed = countOf(results, 'changed');
        const job: BulkActionJob = {
          id: null,
          action: input.action,
          status: 'done',
          total: ids.length,
          processed: ids.length,
          changed,
          unchanged: ids.length - changed - failed,
          failed,
          results,
          createdAt,
          finishedAt: deps.now().toISOString(),
        };
        return { job, queued: false };
      }
      const row = {
        id: deps.uuid(),
        org_id: ctx.orgId,
        action: JSON.stringify(input.action),
        actor: ctx.actor ? JSON.stringify(ctx.actor) : null,
        status: 'queued',
        total: ids.length,
        claim_token: null,
        claimed_until: null,
        served_at: null,
        created_at: createdAt,
        updated_at: createdAt,
        finished_at: null,
      };
      if (!(await repo.insert(row, ids))) throw appError('too_many_bulk_actions');
      deps.nudge();
      return { job: shown({ ...row, processed: 0, changed: 0, failed: 0 }, []), queued: true };
    },

    async get(ctx: OrgContext, id: string): Promise<BulkActionJob> {
      const row = await repo.find(ctx.orgId, id);
      if (!row) throw appError('not_found', 'No such bulk action');
      const failures = await repo.failures(id);
      return shown(
        row,
        failures.map((item) => ({
          linkId: item.link_id,
          outcome: 'failed' as const,
          error: { error: item.error ?? 'failed', message: item.message ?? '' },
        })),
      );
    },
  };
}

export type BulkActionService = ReturnType<typeof createBulkActionService>;
