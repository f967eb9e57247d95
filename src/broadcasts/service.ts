import { z } from 'zod';
import { audienceDb, coreView } from '../audience/db.js';
import { changesBetween } from '../audit/changes.js';
import type { AuditLog } from '../audit/service.js';
import { AppError, appError, featureError } from '../errors.js';
import type { Store } from '../store/database.js';
import type { BroadcastTable, RecipientStatus } from '../store/migrations/011-audience.js';
import type { OrgContext } from '../tenancy/context.js';
import { matchesFilter, type SegmentFilter, type SegmentService } from './segments.js';

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
  const db = audienceDb(deps.store);
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
    const rows = await db
      .selectFrom('broadcast_recipients')
      .select(['broadcast_id', 'status'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('broadcast_id', 'in', ids)
      .groupBy(['broadcast_id', 'status'])
      .execute();
    for (const row of rows) {
      const entry = map.get(row.broadcast_id);
      if (entry) entry[row.status as RecipientStatus] = Number(row.n);
    }
    return map;
  }

  type Row = Omit<BroadcastTable, 'status'> & { status: string };
  const present = (row: Row, c: Counts | undefined): Broadcast => ({
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

  async function find(ctx: OrgContext, id: string): Promise<Row> {
    const row = await db
      .selectFrom('broadcasts')
      .selectAll()
      .where('org_id', '=', ctx.orgId)
      .where('id', '=', id)
      .executeTakeFirst();
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
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('broadcasts').values(row).execute();
        await deps.audit?.record(coreView(trx), ctx, {
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
      await db.transaction().execute(async (trx) => {
        const edited = await trx
          .updateTable('broadcasts')
          .set({ ...edit, updated_at: iso() })
          .where('id', '=', id)
          .where('org_id', '=', ctx.orgId)
          .where('status', '=', 'draft')
          .executeTakeFirst();
        if (Number(edited.numUpdatedRows) === 0) throw notDraft();
        // The bodies are named, not copied: a mail's text is content, not an audit trail's business.
        const before = { subject: row.subject, segmentId: row.segment_id, html: row.html, text: row.text };
        const after = {
          subject: edit.subject ?? before.subject,
          segmentId: edit.segment_id !== undefined ? edit.segment_id : before.segmentId,
          html: edit.html ?? before.html,
          text: edit.text !== undefined ? edit.text : before.text,
        };
        const changes = changesBetween(before, after, { secret: ['html', 'text'] });
        await deps.audit?.record(coreView(trx), ctx, {
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
      const rows = await db
        .selectFrom('broadcasts')
        .selectAll()
        .where('org_id', '=', ctx.orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(BROADCAST_LIST_LIMIT)
        .execute();
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
      await db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('broadcasts')
          .set({ status: 'sending', updated_at: at })
          .where('id', '=', id)
          .where('status', '=', 'draft')
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) === 0) throw notDraft();
        const contacts = await trx
          .selectFrom('contacts')
          .select('id')
          .where('contacts.org_id', '=', ctx.orgId)
          .where(matchesFilter(filter))
          .orderBy('created_at', 'asc')
          .execute();
        for (let start = 0; start < contacts.length; start += 500) {
          await trx
            .insertInto('broadcast_recipients')
            .values(
              contacts.slice(start, start + 500).map((contact) => ({
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
            )
            .execute();
        }
        await deps.audit?.record(coreView(trx), ctx, {
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
