import { useMemo, useState } from 'react';
import { del } from '../../api/client';
import type { AudienceList, Contact } from '../../api/types';
import { Stat } from '../../components/charts';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  EmptyState,
  formatDate,
  formatDateTime,
  formatNumber,
  Loading,
  Modal,
  PageHeader,
  TextField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { ConfirmDialog, STATUS_WORDS, statusTone } from './confirm';
import './audience.css';

interface ContactDetail extends Contact {
  consentText: string;
  unsubscribedAt: string | null;
  sourceLinkId: string | null;
  broadcasts: {
    id: string;
    subject: string;
    status: 'queued' | 'sending' | 'sent' | 'failed' | 'skipped';
    reason: string | null;
    sentAt: string | null;
  }[];
}

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

export function AudiencePage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const canCapture = session.features.audienceCapture;
  const list = useApi<AudienceList>('/audience');
  const [query, setQuery] = useState('');
  const [openId, setOpenId] = useState<string | null>(null);
  const [toDelete, setToDelete] = useState<Contact | null>(null);
  const [notice, setNotice] = useState<string>();

  const contacts = list.data?.contacts ?? [];
  const total = list.data?.count ?? 0;
  const needle = query.trim().toLowerCase();
  const shown = useMemo(
    () =>
      needle
        ? contacts.filter((contact) =>
            [contact.email, contact.sourceSlug ?? '', contact.country ?? ''].some((value) =>
              value.toLowerCase().includes(needle),
            ),
          )
        : contacts,
    [contacts, needle],
  );

  const removeContact = async (contact: Contact) => {
    await del(`/audience/${contact.id}`);
    if (list.data) {
      list.setData({
        count: Math.max(0, list.data.count - 1),
        contacts: list.data.contacts.filter((item) => item.id !== contact.id),
      });
    }
    setOpenId(null);
    setNotice(`${contact.email} was deleted with their consent record.`);
  };

  const lastWeek = contacts.filter(
    (contact) => Date.now() - Date.parse(contact.createdAt) < 7 * 86_400_000,
  ).length;
  const sources = new Set(contacts.map((contact) => contact.sourceSlug).filter(Boolean)).size;

  return (
    <>
      <PageHeader
        title="Audience"
        subtitle="The people who left their email on one of your links."
        actions={
          total > 0 ? (
            <a className="btn btn-secondary" href="/api/audience/export.csv" download>
              Export CSV
            </a>
          ) : null
        }
      />
      {canCapture ? null : <UpgradeNotice feature="audienceCapture" />}
      {notice ? <Banner kind="success">{notice}</Banner> : null}
      {list.error ? <Banner kind="error">{list.error}</Banner> : null}

      {list.loading && !list.data ? <Loading label="Loading your audience" /> : null}

      {list.data ? (
        <>
          {total > 0 ? (
            <div className="stats au-stats">
              <Stat label="Contacts" value={formatNumber(total)} />
              <Stat
                label="New this week"
                value={formatNumber(lastWeek)}
                note={total > contacts.length ? 'among the newest 500' : undefined}
              />
              <Stat label="Links collecting" value={formatNumber(sources)} />
            </div>
          ) : null}

          <Card
            title="Contacts"
            actions={
              <span className="muted audience-count" aria-live="polite">
                {countLine(shown.length, contacts.length, total, needle !== '')}
              </span>
            }
          >
            {contacts.length === 0 ? (
              <EmptyState title="No contacts yet">
                <HowItWorks canCapture={canCapture} />
              </EmptyState>
            ) : (
              <>
                <div className="toolbar">
                  <TextField
                    label="Search contacts"
                    type="search"
                    placeholder="Email, link or country"
                    value={query}
                    onChange={(event) => setQuery(event.target.value)}
                  />
                </div>
                {shown.length === 0 ? (
                  <p className="muted">No contact matches “{query.trim()}”.</p>
                ) : (
                  <div className="table-wrap au-wrap">
                    <table className="audience-table au-stack">
                      <thead>
                        <tr>
                          <th scope="col">Email</th>
                          <th scope="col">Source link</th>
                          <th scope="col">Country</th>
                          <th scope="col">Captured</th>
                          <th scope="col">
                            <span className="sr-only">Actions</span>
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {shown.map((contact) => (
                          <tr key={contact.id}>
                            <td className="truncate">
                              <button
                                type="button"
                                className="link-btn"
                                onClick={() => setOpenId(contact.id)}
                                aria-label={`Details of ${contact.email}`}
                              >
                                {contact.email}
                              </button>
                            </td>
                            <td data-label="Source link">
                              {contact.sourceSlug ? (
                                <code>/{contact.sourceSlug}</code>
                              ) : (
                                <span className="muted">—</span>
                              )}
                            </td>
                            <td data-label="Country">
                              {contact.country ?? <span className="muted">—</span>}
                            </td>
                            <td className="nowrap" data-label="Captured">
                              {formatDate(contact.createdAt)}
                            </td>
                            <td className="au-row-actions">
                              <Button
                                variant="ghost"
                                className="btn-small"
                                onClick={() => setToDelete(contact)}
                                aria-label={`Delete ${contact.email}`}
                              >
                                Delete
                              </Button>
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              </>
            )}
          </Card>

          {contacts.length > 0 ? (
            <Card title="How contacts arrive">
              <HowItWorks canCapture={canCapture} />
            </Card>
          ) : null}
        </>
      ) : null}

      <ContactModal
        id={openId}
        onClose={() => setOpenId(null)}
        onDelete={(contact) => {
          setOpenId(null);
          setToDelete(contact);
        }}
      />
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this contact?"
        confirmLabel="Delete contact"
        onClose={() => setToDelete(null)}
        onConfirm={async () => {
          if (toDelete) await removeContact(toDelete);
        }}
      >
        <p>
          <strong>{toDelete?.email}</strong> and the consent they gave are removed for good. They will get no
          further broadcasts unless they sign up again.
        </p>
      </ConfirmDialog>
    </>
  );
}

function countLine(shown: number, loaded: number, total: number, filtering: boolean): string {
  const noun = total === 1 ? 'contact' : 'contacts';
  if (filtering) return `${formatNumber(shown)} of ${formatNumber(loaded)} shown`;
  if (total > loaded) return `Showing ${formatNumber(loaded)} of ${formatNumber(total)} (the newest)`;
  return `${formatNumber(total)} ${noun}`;
}

function HowItWorks({ canCapture }: { canCapture: boolean }) {
  return (
    <div className="how">
      <ol className="how-steps">
        <li>
          Open a link and turn on <strong>Capture emails</strong>.
        </li>
        <li>
          When a follower lands on that link’s fallback page, they see a short sign-up form with a consent
          checkbox.
        </li>
        <li>Each email appears here with the exact consent wording they agreed to.</li>
      </ol>
      {canCapture ? (
        <p className="muted">
          Export the list as CSV at any time, or email everyone from <a href="#/broadcasts">Broadcasts</a>.
        </p>
      ) : (
        <p className="muted">
          Your list stays readable and exportable on every plan; collecting new emails needs Hero or Legend.
        </p>
      )}
    </div>
  );
}

function ContactModal({
  id,
  onClose,
  onDelete,
}: {
  id: string | null;
  onClose: () => void;
  onDelete: (contact: Contact) => void;
}) {
  const detail = useApi<ContactDetail>(id ? `/audience/${id}` : null);
  const contact = id && detail.data?.id === id ? detail.data : undefined;
  return (
    <Modal open={id !== null} title="Contact" onClose={onClose}>
      {detail.error ? <Banner kind="error">{detail.error}</Banner> : null}
      {!contact && !detail.error ? <Loading label="Loading contact" /> : null}
      {contact ? (
        <div className="contact-detail">
          <p className="contact-email">{contact.email}</p>
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
          <h3 className="detail-heading">Consent they agreed to</h3>
          {contact.consentText.trim() === '' ? (
            <p className="muted">No consent text is stored, so broadcasts are never sent to this contact.</p>
          ) : (
            <blockquote className="consent">{contact.consentText}</blockquote>
          )}
          <h3 className="detail-heading">Broadcasts received</h3>
          {contact.broadcasts.length === 0 ? (
            <p className="muted">None yet.</p>
          ) : (
            <ul className="received">
              {contact.broadcasts.map((item) => (
                <li key={item.id}>
                  <div className="received-head">
                    <span className="received-subject">{item.subject}</span>
                    <Badge tone={statusTone(item.status)}>{STATUS_WORDS[item.status] ?? item.status}</Badge>
                  </div>
                  <span className="muted received-meta">
                    {item.sentAt ? `Sent ${formatDateTime(item.sentAt)}` : null}
                    {reasonText(item.reason) ? ` ${reasonText(item.reason)}` : null}
                  </span>
                </li>
              ))}
            </ul>
          )}
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
