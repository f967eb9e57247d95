import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';
import type { RecipientStatus } from '../store/migrations/011-audience.js';
import type { OrgContext } from '../tenancy/context.js';
import { hasFeature, isTier } from '../tenancy/plans.js';
import type { EventOutbox } from '../webhooks/service.js';
import { audienceCsv } from './csv.js';
import { createAudienceRepo } from './repo.js';

/** Captured contacts (hosted-service.md 2, 4.4): the public capture, the lists, detail, delete, export. */

export const MAX_EMAIL_LENGTH = 254;
export const DASHBOARD_LIST_LIMIT = 500;
// Deliberately plain: an address with no spaces or control characters, one @, a dot in the domain. It
// also keeps CR/LF out of anything that later becomes a mail header.
const EMAIL_SHAPE = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** The consent wording, written by the server with the organization's display name; stored per contact. */
export function consentText(orgName: string): string {
  return `I agree to receive emails from ${orgName}. I can unsubscribe at any time with the link in every email.`;
}

export interface Contact {
  id: string;
  email: string;
  sourceSlug: string | null;
  country: string | null;
  createdAt: string;
}

export interface ContactDetail extends Contact {
  consentText: string;
  unsubscribedAt: string | null;
  sourceLinkId: string | null;
  broadcasts: {
    id: string;
    subject: string;
    status: RecipientStatus;
    reason: string | null;
    sentAt: string | null;
  }[];
}

export interface CaptureInput {
  slug: string;
  email: string;
  consent: unknown;
  website: string;
  country: string | null;
}

export interface AudienceServiceDeps {
  store: Store;
  now: () => Date;
  uuid: () => string;
  flagsOff: ReadonlySet<string>;
  /** contact.captured to the organization's webhooks, queued in the transaction that stores the contact. */
  events: EventOutbox;
  /** The audit log: a contact deleted by a person or a key, logged in the deletion's transaction. */
  audit?: AuditLog;
}

type ContactRow = {
  id: string;
  email: string;
  source_slug: string | null;
  country: string | null;
  created_at: string;
};
const toContact = (row: ContactRow): Contact => ({
  id: row.id,
  email: row.email,
  sourceSlug: row.source_slug,
  country: row.country,
  createdAt: row.created_at,
});

export function createAudienceService(deps: AudienceServiceDeps) {
  const repo = createAudienceRepo(deps.store);

  // Reading the list is gated by the product flag only: a downgraded organization keeps its contacts.
  const requireFlag = () => {
    if (deps.flagsOff.has('audienceCapture')) throw appError('feature_disabled');
  };

  return {
    /**
     * Rules 1 to 5 of 4.4. Returns whether a new contact was stored; every refusal is silent because
     * the route answers 204 whatever happens.
     */
    async capture(input: CaptureInput): Promise<boolean> {
      if (input.consent !== true || input.website !== '') return false;
      const email = input.email.trim().toLowerCase();
      if (input.email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(email)) return false;
      if (deps.flagsOff.has('audienceCapture')) return false;
      // Default-host links only (host ''): a custom domain's page is not ours to collect on.
      const link = await repo.captureLink(input.slug);
      if (!link || Number(link.capture_emails) !== 1) return false;
      if (!isTier(link.tier) || !hasFeature(link.tier, 'audienceCapture')) return false;
      const createdAt = deps.now().toISOString();
      let queued = 0;
      try {
        await repo.transaction(async (trx) => {
          await repo.insertContact(trx, {
            id: deps.uuid(),
            org_id: link.org_id,
            email,
            consent_text: consentText(link.name),
            source_slug: input.slug,
            source_link_id: link.id,
            country: input.country,
            unsubscribed_at: null,
            created_at: createdAt,
          });
          const data = { email, sourceSlug: input.slug, country: input.country, createdAt };
          queued = await deps.events.emitIn(trx, link.org_id, 'contact.captured', data);
        });
      } catch (error) {
        if (isUniqueViolation(error)) return false; // a repeat email: silent, fires nothing
        throw error;
      }
      if (queued > 0) deps.events.nudge();
      return true;
    },

    /** Newest first; `{count}` is the organization's total, not the page size. No page: everything. */
    async list(ctx: OrgContext, page: { limit?: number; offset?: number }) {
      requireFlag();
      const { rows, total } = await repo.listContacts(ctx.orgId, page);
      return { count: total, contacts: rows.map(toContact) };
    },

    async detail(ctx: OrgContext, id: string): Promise<ContactDetail> {
      requireFlag();
      const row = await repo.contact(ctx.orgId, id);
      if (!row) throw appError('not_found', 'No such contact');
      const sends = await repo.sendsTo(ctx.orgId, id);
      return {
        ...toContact(row),
        consentText: row.consent_text,
        unsubscribedAt: row.unsubscribed_at,
        sourceLinkId: row.live_link_id ?? null,
        broadcasts: sends.map((send) => ({
          id: send.id,
          subject: send.subject,
          status: send.status,
          reason: send.reason,
          sentAt: send.sent_at,
        })),
      };
    },

    /** The row is gone; recipient rows keep the broadcast's counts but lose the link to the person. */
    async remove(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      const gone = await repo.transaction(async (trx) => {
        if (!(await repo.deleteContact(trx, ctx.orgId, id))) return false;
        // The id only: the person asked to be forgotten, so their address does not live on in the log.
        await deps.audit?.record(trx, ctx, {
          action: 'contact.deleted',
          target: { type: 'contact', id },
        });
        return true;
      });
      if (!gone) throw appError('not_found', 'No such contact');
      return { deleted: true };
    },

    /** The whole list, oldest first, as the spec's CSV. */
    async exportCsv(ctx: OrgContext): Promise<string> {
      requireFlag();
      const rows = await repo.exportRows(ctx.orgId);
      return audienceCsv(
        rows.map((row) => ({
          email: row.email,
          sourceSlug: row.source_slug,
          country: row.country,
          consentText: row.consent_text,
          createdAt: row.created_at,
        })),
      );
    },
  };
}

export type AudienceService = ReturnType<typeof createAudienceService>;
