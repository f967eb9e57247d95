import type { Kysely } from 'kysely';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { AudienceTables, ContactTable } from '../store/migrations/011-audience.js';
import type { Database } from '../store/schema.js';

/** The store seen with the audience tables; the cast stands until schema.ts's Database lists them. */
export type AudienceDb = Database & AudienceTables;

export function audienceDb(store: Store): Kysely<AudienceDb> {
  return store.db as unknown as Kysely<AudienceDb>;
}

/**
 * A connection or transaction seen with the audience tables. Transactions are handed out as the core
 * `Transaction<Database>`, the type the audit log and the outbox write through; the repos widen it here.
 */
export function audienceView(ex: Executor): Kysely<AudienceDb> {
  return ex as unknown as Kysely<AudienceDb>;
}

const LIST_COLUMNS = ['id', 'email', 'source_slug', 'country', 'created_at'] as const;

/** The contacts' SQL; every query but the capture's link lookup takes the organization. */
export function createAudienceRepo(store: Store) {
  const db = audienceDb(store);
  return {
    /** One transaction: the contact write, its outbox rows and its audit row commit together. */
    transaction: unitOfWork(store.db),

    /** The default-host (host '') link at `slug`, with what capture decides on: its flag, org name and tier. */
    async captureLink(slug: string) {
      return db
        .selectFrom('links')
        .innerJoin('organizations', 'organizations.id', 'links.org_id')
        .select([
          'links.id',
          'links.org_id',
          'links.capture_emails',
          'organizations.name',
          'organizations.tier',
        ])
        .where('links.host', '=', '')
        .where('links.slug', '=', slug)
        .executeTakeFirst();
    },

    async insertContact(ex: Executor, contact: ContactTable): Promise<void> {
      await audienceView(ex).insertInto('contacts').values(contact).execute();
    },

    /** Newest first, with the organization's total; no page: everything. Both read at once. */
    async listContacts(orgId: string, page: { limit?: number; offset?: number }) {
      let query = db
        .selectFrom('contacts')
        .select(LIST_COLUMNS)
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc');
      if (page.limit !== undefined) query = query.limit(page.limit);
      if (page.offset !== undefined) query = query.offset(page.offset).limit(page.limit ?? 1_000_000_000);
      const [rows, total] = await Promise.all([
        query.execute(),
        db
          .selectFrom('contacts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('org_id', '=', orgId)
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },

    async contact(orgId: string, id: string) {
      return (
        db
          .selectFrom('contacts as c')
          // sourceLinkId only while that link still exists in the organization.
          .leftJoin('links as l', (join) =>
            join.onRef('l.id', '=', 'c.source_link_id').onRef('l.org_id', '=', 'c.org_id'),
          )
          .selectAll('c')
          .select('l.id as live_link_id')
          .where('c.org_id', '=', orgId)
          .where('c.id', '=', id)
          .executeTakeFirst()
      );
    },

    /** The broadcasts a contact was queued for, newest first. */
    async sendsTo(orgId: string, contactId: string) {
      return db
        .selectFrom('broadcast_recipients as r')
        .innerJoin('broadcasts as b', 'b.id', 'r.broadcast_id')
        .select(['b.id', 'b.subject', 'r.status', 'r.reason', 'r.sent_at', 'r.created_at'])
        .where('r.org_id', '=', orgId)
        .where('r.contact_id', '=', contactId)
        .orderBy('r.created_at', 'desc')
        .execute();
    },

    /**
     * Unlinks the contact's recipient rows (they keep the broadcast's counts), then deletes the contact;
     * false when there was no such contact.
     */
    async deleteContact(ex: Executor, orgId: string, id: string): Promise<boolean> {
      const trx = audienceView(ex);
      await trx
        .updateTable('broadcast_recipients')
        .set({ contact_id: null })
        .where('org_id', '=', orgId)
        .where('contact_id', '=', id)
        .execute();
      const result = await trx
        .deleteFrom('contacts')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) !== 0;
    },

    /** The whole list, oldest first: the export's rows. */
    async exportRows(orgId: string) {
      return db
        .selectFrom('contacts')
        .select(['email', 'source_slug', 'country', 'consent_text', 'created_at'])
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },
  };
}

export type AudienceRepo = ReturnType<typeof createAudienceRepo>;
