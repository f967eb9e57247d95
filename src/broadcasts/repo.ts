import type { Insertable } from 'kysely';
import { audienceDb, audienceView } from '../audience/repo.js';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { BroadcastTable, RecipientStatus } from '../store/migrations/011-audience.js';
import { type ContactFilter, matchesFilter } from './segment-repo.js';

/**
 * The broadcasts' SQL: drafts and the send request (service.ts), the send worker's claims and bookkeeping
 * (worker.ts), the unsubscribe token's lookup (unsubscribe.ts). The worker's queries span organizations
 * on purpose: it sends every organization's queue.
 */

/** A broadcast row as read back. */
export type BroadcastRow = Omit<BroadcastTable, 'status'> & { status: string };

/** A recipient row as the send request queues it: status and the rest take their defaults. */
export interface QueuedRecipient {
  id: string;
  broadcast_id: string;
  org_id: string;
  contact_id: string;
  reason: null;
  claim_token: null;
  claimed_until: null;
  unsubscribe_token_hash: null;
  sent_at: null;
  created_at: string;
}

/** Rows per INSERT when queueing recipients, under both dialects' bound-parameter limits. */
const QUEUE_CHUNK = 500;

export function createBroadcastRepo(store: Store) {
  const db = audienceDb(store);
  return {
    /** One transaction: a broadcast write and its audit row commit together. */
    transaction: unitOfWork(store.db),

    // Drafts and the send request: every query takes the organization.

    async find(orgId: string, id: string): Promise<BroadcastRow | undefined> {
      return db
        .selectFrom('broadcasts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Newest first, at most `limit`. */
    async list(orgId: string, limit: number): Promise<BroadcastRow[]> {
      return db
        .selectFrom('broadcasts')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    /** Recipient rows per broadcast and status. */
    async recipientCounts(
      ids: string[],
    ): Promise<{ broadcast_id: string; status: RecipientStatus; n: number }[]> {
      return db
        .selectFrom('broadcast_recipients')
        .select(['broadcast_id', 'status'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('broadcast_id', 'in', ids)
        .groupBy(['broadcast_id', 'status'])
        .execute();
    },

    async insert(ex: Executor, row: Insertable<BroadcastTable>): Promise<void> {
      await audienceView(ex).insertInto('broadcasts').values(row).execute();
    },

    /** Edits the broadcast only while it is a draft; false when it is not (or not the organization's). */
    async editDraft(
      ex: Executor,
      orgId: string,
      id: string,
      edit: Partial<Pick<BroadcastTable, 'subject' | 'html' | 'text' | 'segment_id'>> & {
        updated_at: string;
      },
    ): Promise<boolean> {
      const edited = await audienceView(ex)
        .updateTable('broadcasts')
        .set(edit)
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .where('status', '=', 'draft')
        .executeTakeFirst();
      return Number(edited.numUpdatedRows) !== 0;
    },

    /** Moves a draft to `sending`; false when it is no longer a draft (a second send lost the race). */
    async startSending(ex: Executor, id: string, at: string): Promise<boolean> {
      const moved = await audienceView(ex)
        .updateTable('broadcasts')
        .set({ status: 'sending', updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'draft')
        .executeTakeFirst();
      return Number(moved.numUpdatedRows) !== 0;
    },

    /** The organization's contacts matching `filter`, oldest first. */
    async matchingContacts(ex: Executor, orgId: string, filter: ContactFilter): Promise<{ id: string }[]> {
      return audienceView(ex)
        .selectFrom('contacts')
        .select('id')
        .where('contacts.org_id', '=', orgId)
        .where(matchesFilter(filter))
        .orderBy('created_at', 'asc')
        .execute();
    },

    async queueRecipients(ex: Executor, rows: QueuedRecipient[]): Promise<void> {
      for (let start = 0; start < rows.length; start += QUEUE_CHUNK) {
        await audienceView(ex)
          .insertInto('broadcast_recipients')
          .values(rows.slice(start, start + QUEUE_CHUNK))
          .execute();
      }
    },

    // The send worker.

    /** Fails rows left `sending` by a pass whose claim ran out before `now`: never re-sent. */
    async failInterrupted(now: string): Promise<void> {
      await db
        .updateTable('broadcast_recipients')
        .set({ status: 'failed', reason: 'interrupted', claimed_until: null })
        .where('status', '=', 'sending')
        .where('claimed_until', '<', now)
        .execute();
    },

    /** Moves up to `limit` queued rows, oldest first, to `sending` under `token`, in one conditional UPDATE. */
    async claimQueued(token: string, claimedUntil: string, limit: number): Promise<void> {
      await db
        .updateTable('broadcast_recipients')
        .set({ status: 'sending', claim_token: token, claimed_until: claimedUntil })
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('broadcast_recipients')
            .select('id')
            .where('status', '=', 'queued')
            .orderBy('created_at', 'asc')
            .limit(limit),
        )
        .where('status', '=', 'queued')
        .execute();
    },

    /** The rows claimed under `token`, with their contact (null once deleted) and their broadcast's message. */
    async claimed(token: string) {
      return db
        .selectFrom('broadcast_recipients as r')
        .innerJoin('broadcasts as b', 'b.id', 'r.broadcast_id')
        .leftJoin('contacts as c', 'c.id', 'r.contact_id')
        .select(['r.id', 'r.contact_id', 'c.email', 'c.consent_text', 'c.unsubscribed_at'])
        .select(['b.subject', 'b.html', 'b.text'])
        .where('r.claim_token', '=', token)
        .where('r.status', '=', 'sending')
        .execute();
    },

    async setUnsubscribeHash(recipientId: string, hash: string): Promise<void> {
      await db
        .updateTable('broadcast_recipients')
        .set({ unsubscribe_token_hash: hash })
        .where('id', '=', recipientId)
        .execute();
    },

    async finishRecipient(
      recipientId: string,
      status: 'sent' | 'failed' | 'skipped',
      reason: string | null,
      sentAt: string | null,
    ): Promise<void> {
      await db
        .updateTable('broadcast_recipients')
        .set({ status, reason, sent_at: sentAt, claimed_until: null })
        .where('id', '=', recipientId)
        .execute();
    },

    async sendingIds(): Promise<{ id: string }[]> {
      return db.selectFrom('broadcasts').select('id').where('status', '=', 'sending').execute();
    },

    /** One broadcast's recipient rows per status. */
    async statusCounts(broadcastId: string): Promise<{ status: RecipientStatus; n: number }[]> {
      return db
        .selectFrom('broadcast_recipients')
        .select(['status'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('broadcast_id', '=', broadcastId)
        .groupBy('status')
        .execute();
    },

    /** The final status, only while the broadcast is still `sending`. */
    async settle(id: string, status: 'sent' | 'failed', sentAt: string): Promise<void> {
      await db
        .updateTable('broadcasts')
        .set({ status, sent_at: sentAt })
        .where('id', '=', id)
        .where('status', '=', 'sending')
        .execute();
    },

    // The unsubscribe link.

    /** The recipient mailed the token with this hash, and whether its contact is already unsubscribed. */
    async recipientByTokenHash(hash: string) {
      return db
        .selectFrom('broadcast_recipients as r')
        .leftJoin('contacts as c', 'c.id', 'r.contact_id')
        .select(['r.contact_id', 'c.unsubscribed_at'])
        .where('r.unsubscribe_token_hash', '=', hash)
        .executeTakeFirst();
    },

    /** Idempotent: the first unsubscribe time is kept. */
    async unsubscribeContact(contactId: string, at: string): Promise<void> {
      await db
        .updateTable('contacts')
        .set({ unsubscribed_at: at })
        .where('id', '=', contactId)
        .where('unsubscribed_at', 'is', null)
        .execute();
    },
  };
}

export type BroadcastRepo = ReturnType<typeof createBroadcastRepo>;
