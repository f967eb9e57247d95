import type { Contact, ContactDetail } from '../../api/types';
import { Badge, Banner, Button, formatDate, formatDateTime, Loading, Modal } from '../../components/ui';
import { useApi } from '../../use-api';
import { StatusBadge } from './words';

const REASONS: Record<string, string> = {
  unsubscribed: 'They had unsubscribed.',
  no_consent: 'No consent on record.',
  contact_deleted: 'The contact was deleted.',
  interrupted: 'Sending was interrupted.',
  smtp_error: 'The mail server could not be reached.',
};

/** The recipient row's machine reason in plain words (`smtp_550` is the mail server's refusal code). */
function reasonText(reason: string | null): string | null {
  if (!reason) return null;
  const smtp = /^smtp_(\d{3})$/.exec(reason);
  if (smtp) return `The mail server refused it (${smtp[1]}).`;
  return REASONS[reason] ?? reason;
}

/** One contact in full: consent wording, where they came from, and every broadcast they were sent. */
export function ContactModal({
  id,
  onClose,
  onDelete,
}: {
  id: string | null;
  onClose: () => void;
  onDelete: (contact: Contact) => void;
}) {
  const detail = useApi<ContactDetail>(id ? `/audience/${id}` : null);
  // The previous contact's detail stays in `data` until the new one arrives; never show it.
  const contact = id && detail.data?.id === id ? detail.data : undefined;
  return (
    <Modal open={id !== null} title="Contact" onClose={onClose}>
      {detail.error ? <Banner kind="error">{detail.error}</Banner> : null}
      {!contact && !detail.error ? <Loading label="Loading contact" /> : null}
      {contact ? (
        <div className="contact-detail">
          <p className="contact-email">{contact.email}</p>
          <ContactFacts contact={contact} />
          <h3 className="detail-heading">Consent they agreed to</h3>
          {contact.consentText.trim() === '' ? (
            <p className="muted">No consent text is stored, so broadcasts are never sent to this contact.</p>
          ) : (
            <blockquote className="consent">{contact.consentText}</blockquote>
          )}
          <h3 className="detail-heading">Broadcasts received</h3>
          <ReceivedList broadcasts={contact.broadcasts} />
          <div className="form-actions">
            <Button variant="danger" onClick={() => onDelete(contact)}>
              Delete contact
            </Button>
          </div>
        </div>
      ) : null}
    </Modal>
  );
}

function ContactFacts({ contact }: { contact: ContactDetail }) {
  return (
    <dl className="contact-facts">
      <div>
        <dt>Status</dt>
        <dd>
          {contact.unsubscribedAt ? (
            <Badge tone="warn">Unsubscribed {formatDate(contact.unsubscribedAt)}</Badge>
          ) : contact.consentText.trim() === '' ? (
            <Badge tone="bad">No consent on record</Badge>
          ) : (
            <Badge tone="good">Subscribed</Badge>
          )}
        </dd>
      </div>
      <div>
        <dt>Source link</dt>
        <dd>
          {contact.sourceSlug ? (
            contact.sourceLinkId ? (
              <a href={`#/links/${contact.sourceLinkId}`}>/{contact.sourceSlug}</a>
            ) : (
              <span>
                /{contact.sourceSlug} <span className="muted">(link deleted)</span>
              </span>
            )
          ) : (
            '—'
          )}
        </dd>
      </div>
      <div>
        <dt>Country</dt>
        <dd>{contact.country ?? '—'}</dd>
      </div>
      <div>
        <dt>Captured</dt>
        <dd>{formatDateTime(contact.createdAt)}</dd>
      </div>
    </dl>
  );
}

function ReceivedList({ broadcasts }: { broadcasts: ContactDetail['broadcasts'] }) {
  if (broadcasts.length === 0) return <p className="muted">None yet.</p>;
  return (
    <ul className="received">
      {broadcasts.map((item) => {
        const reason = reasonText(item.reason);
        return (
          <li key={item.id}>
            <div className="received-head">
              <span className="received-subject">{item.subject}</span>
              <StatusBadge status={item.status} />
            </div>
            <span className="muted received-meta">
              {item.sentAt ? `Sent ${formatDateTime(item.sentAt)}` : null}
              {reason ? ` ${reason}` : null}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
