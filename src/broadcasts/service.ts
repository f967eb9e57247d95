import { z } from 'zod';
import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import { AppError, appError, featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { type BroadcastRow, createBroadcastRepo } from './repo.js';
import type { SegmentFilter, SegmentService } from './segments.js';

/** Broadcast drafts and the send request (decisions.md "Broadcasts and segments"; spec 4.6). */

export const BROADCAST_LIST_LIMIT = 100;
const MAX_BODY = 500_000;

export const createBroadcastBody = z
  .object({
    subject: z.string().trim().min(1).max(200),
    html: z.string().min(1).max(MAX_BODY),
    text: z.string().max(MAX_BODY).nullable().optional(),
    segmentId: z.uuid().nullable().optional().describe('a segment (audienceSegments); absent means everyone'),
  })
  .strict();
export const patchBroadcastBody = createBroadcastBody.partial().strict();

const counts = z.object({
  queued: z.number().int(),
  sending: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
});
export const broadcastSchema = z
  .object({
    id: z.uuid(),
    subject: z.string(),
    html: z.string(),
    text: z.string().nullable(),
    status: z.enum(['draft', 'sending', 'sent', 'failed']),
    segmentId: z.uuid().nullable(),
    counts: counts.describe('recipient rows by status'),
    createdAt: z.string(),
    sentAt: z.string().nullable().describe('when sending finished'),
  })
  .meta({ id: 'Broadcast' });
export type Broadcast = z.infer<typeof broadcastSchema>;
type Counts = z.infer<typeof counts>;

export function notDraft(): AppError {
  return new AppError('broadcast_not_draft', 409, 'Only a draft can be edited or sent');
}

export interface BroadcastServiceDeps {
  store: Store;
  segments: SegmentService;
  now: () => Date;
  uuid: () => string;
  flagsOff: ReadonlySet<string>;
  /** False without SMTP_URL: sending answers 503 not_provisioned. */
  mailConfigured: boolean;
  /** Wakes the send worker. */
  nudge: () => void;
  /** The audit log: drafts made, edited and sent, each logged in its transaction. */
  audit?: AuditLog;
}

export function createBroadcastService(deps: BroadcastServiceDeps) {
  const repo = createBroadcastRepo(deps.store);
  const iso = () => deps.now().toISOString();
  const requireFlag = () => {
    if (deps.flagsOff.has('broadcasts')) throw appError('feature_disabled');
  };
  const requireBroadcasts = (ctx: OrgContext) => {
    requireFlag();
    if (!ctx.features.broadcasts) throw featureError('broadcasts');
  };
  // A segment is a legend feature; the segment must be the organization's own.
  const checkSegment = async (ctx: OrgContext, segmentId: string | null | undefined) => {
    if (segmentId === null || segmentId === undefined) return;
    if (!ctx.features.audienceSegments) throw featureError('audienceSegments');
    await deps.segments.filterOf(ctx, segmentId);
  };

  async function countsOf(ids: string[]): Promise<Map<string, Counts>> {
    const map = new Map<string, Counts>();
    for (const id of ids) map.set(id, { queued: 0, sending: 0, sent: 0, failed: 0, skipped: 0 });
    if (ids.length === 0) return map;
    for (const row of await repo.recipientCounts(ids)) {
      const entry = map.get(row.broadcast_id);
      if (entry) entry[row.status] = Number(row.n);
    }
    return map;
  }

  const present = (row: BroadcastRow, c: Counts | undefined): Broadcast => ({
    id: row.id,
    subject: row.subject,
    html: row.html,
    text: row.text,
    status: row.status as Broadcast['status'],
    segmentId: row.segment_id,
    counts: c ?? { queued: 0, sending: 0, sent: 0, failed: 0, skipped: 0 },
    createdAt: row.created_at,
    sentAt: row.sent_at,
  });

  async function find(ctx: OrgContext, id: string): Promise<BroadcastRow> {
    const row = await repo.find(ctx.orgId, id);
    if (!row) throw appError('not_found', 'No such broadcast');
    return row;
  }
  const one = async (ctx: OrgContext, id: string) => {
    const row = await find(ctx, id);
    return present(row, (await countsOf([id])).get(id));
  };

  return {
    async create(ctx: OrgContext, input: z.infer<typeof createBroadcastBody>): Promise<Broadcast> {
      requireBroadcasts(ctx);
      await checkSegment(ctx, input.segmentId);
      const at = iso();
      const row = {
        id: deps.uuid(),
        org_id: ctx.orgId,
        subject: input.subject,
        html: input.html,
        text: input.text ?? null,
        segment_id: input.segmentId ?? null,
        status: 'draft' as const,
        created_at: at,
        updated_at: at,
        sent_at: null,
      };
      await repo.transaction(async (trx) => {
        await repo.insert(trx, row);
        await deps.audit?.record(trx, ctx, {
          action: 'broadcast.created',
          target: { type: 'broadcast', id: row.id },
          changes: changesBetween(null, { subject: row.subject, segmentId: row.segment_id }),
        });
      });
      return present(row, undefined);
    },

    async update(ctx: OrgContext, id: string, patch: z.infer<typeof patchBroadcastBody>): Promise<Broadcast> {
      requireBroadcasts(ctx);
      const row = await find(ctx, id);
      if (row.status !== 'draft') throw notDraft();
      await checkSegment(ctx, patch.segmentId);
      const edit = {
        ...(patch.subject !== undefined ? { subject: patch.subject } : {}),
        ...(patch.html !== undefined ? { html: patch.html } : {}),
        ...(patch.text !== undefined ? { text: patch.text } : {}),
        ...(patch.segmentId !== undefined ? { segment_id: patch.segmentId } : {}),
      };
      await repo.transaction(async (trx) => {
        if (!(await repo.editDraft(trx, ctx.orgId, id, { ...edit, updated_at: iso() }))) throw notDraft();
        // The bodies are named, not copied: a mail's text is content, not an audit trail's business.
        const before = { subject: row.subject, segmentId: row.segment_id, html: row.html, text: row.text };
        const after = {
          subject: edit.subject ?? before.subject,
          segmentId: edit.segment_id !== undefined ? edit.segment_id : before.segmentId,
          html: edit.html ?? before.html,
          text: edit.text !== undefined ? edit.text : before.text,
        };
        const changes = changesBetween(before, after, { secret: ['html', 'text'] });
        await deps.audit?.record(trx, ctx, {
          action: 'broadcast.updated',
          target: { type: 'broadcast', id },
          changes,
        });
      });
      return one(ctx, id);
    },

    /** Read-only views are flag-gated only: a downgraded organization can still read its send history. */
    async get(ctx: OrgContext, id: string): Promise<Broadcast> {
      requireFlag();
      return one(ctx, id);
    },

    async list(ctx: OrgContext): Promise<Broadcast[]> {
      requireFlag();
      const rows = await repo.list(ctx.orgId, BROADCAST_LIST_LIMIT);
      const c = await countsOf(rows.map((row) => row.id));
      return rows.map((row) => present(row, c.get(row.id)));
    },

    /**
     * Freezes the recipient list: one queued row per matching contact, in the same transaction that moves
     * the draft to `sending`, so a second send cannot queue twice. The worker decides skips at send time.
     */
    async send(ctx: OrgContext, id: string): Promise<Broadcast> {
      requireBroadcasts(ctx);
      // Ownership first: another organization's broadcast is 404 whatever this service's configuration.
      const row = await find(ctx, id);
      if (!deps.mailConfigured)
        throw appError('not_provisioned', 'Outbound mail (SMTP_URL) is not configured');
      if (row.status !== 'draft') throw notDraft();
      let filter: SegmentFilter = {};
      if (row.segment_id !== null) {
        if (!ctx.features.audienceSegments) throw featureError('audienceSegments');
        filter = await deps.segments.filterOf(ctx, row.segment_id);
      }
      const at = iso();
      await repo.transaction(async (trx) => {
        if (!(await repo.startSending(trx, id, at))) throw notDraft();
        const contacts = await repo.matchingContacts(trx, ctx.orgId, filter);
        await repo.queueRecipients(
          trx,
          contacts.map((contact) => ({
            id: deps.uuid(),
            broadcast_id: id,
            org_id: ctx.orgId,
            contact_id: contact.id,
            reason: null,
            claim_token: null,
            claimed_until: null,
            unsubscribe_token_hash: null,
            sent_at: null,
            created_at: at,
          })),
        );
        await deps.audit?.record(trx, ctx, {
          action: 'broadcast.sent',
          target: { type: 'broadcast', id },
          changes: { status: { from: 'draft', to: 'sending' }, recipients: contacts.length },
        });
      });
      // Read before waking the worker, so the 202 always shows `sending`; with nobody to send to, the
      // worker's next pass settles it as `sent`.
      const answer = await one(ctx, id);
      deps.nudge();
      return answer;
    },
  };
}

export type BroadcastService = ReturnType<typeof createBroadcastService>;
