import { useMemo, useState } from 'react';
import type { Contact } from '../../api/types';
import {
  Button,
  Card,
  EmptyState,
  formatDate,
  formatNumber,
  TableHead,
  TextField,
} from '../../components/ui';
import { contactCount } from './words';

/** The loaded contacts, searchable on the client, each row opening its detail or asking to delete it. */
export function ContactsCard({
  contacts,
  total,
  canCapture,
  onOpen,
  onDelete,
}: {
  contacts: Contact[];
  /** Everyone on the list; the server sends only the newest of them. */
  total: number;
  canCapture: boolean;
  onOpen: (contact: Contact) => void;
  onDelete: (contact: Contact) => void;
}) {
  const [query, setQuery] = useState('');
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

  return (
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
            <ContactsTable contacts={shown} onOpen={onOpen} onDelete={onDelete} />
          )}
        </>
      )}
    </Card>
  );
}

function countLine(shown: number, loaded: number, total: number, filtering: boolean): string {
  if (filtering) return `${formatNumber(shown)} of ${formatNumber(loaded)} shown`;
  if (total > loaded) return `Showing ${formatNumber(loaded)} of ${formatNumber(total)} (the newest)`;
  return contactCount(total);
}

function ContactsTable({
  contacts,
  onOpen,
  onDelete,
}: {
  contacts: Contact[];
  onOpen: (contact: Contact) => void;
  onDelete: (contact: Contact) => void;
}) {
  return (
    <div className="table-wrap au-wrap">
      <table className="audience-table au-stack">
        <TableHead columns={['Email', 'Source link', 'Country', 'Captured']} />
        <tbody>
          {contacts.map((contact) => (
            <tr key={contact.id}>
              <td className="truncate">
                <button
                  type="button"
                  className="link-btn"
                  onClick={() => onOpen(contact)}
                  aria-label={`Details of ${contact.email}`}
                >
                  {contact.email}
                </button>
              </td>
              <td data-label="Source link">
                {contact.sourceSlug ? <code>/{contact.sourceSlug}</code> : <span className="muted">—</span>}
              </td>
              <td data-label="Country">{contact.country ?? <span className="muted">—</span>}</td>
              <td className="nowrap" data-label="Captured">
                {formatDate(contact.createdAt)}
              </td>
              <td className="au-row-actions">
                <Button
                  variant="ghost"
                  className="btn-small"
                  onClick={() => onDelete(contact)}
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
  );
}

export function HowItWorks({ canCapture }: { canCapture: boolean }) {
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
