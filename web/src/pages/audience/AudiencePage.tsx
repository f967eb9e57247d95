import { useState } from 'react';
import { del } from '../../api/client';
import type { AudienceList, Contact } from '../../api/types';
import { Stat } from '../../components/charts';
import { ConfirmDialog } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import { Banner, Card, formatNumber, Loading, PageHeader } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { ContactModal } from './ContactModal';
import { ContactsCard, HowItWorks } from './ContactsCard';
import './audience.css';

const WEEK_MS = 7 * 86_400_000;

export function AudiencePage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const canCapture = session.features.audienceCapture;
  const list = useApi<AudienceList>('/audience');
  const [openId, setOpenId] = useState<string | null>(null);
  const [toDelete, setToDelete] = useState<Contact | null>(null);
  const [notice, setNotice] = useState<string>();

  const contacts = list.data?.contacts ?? [];
  const total = list.data?.count ?? 0;

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
          {total > 0 ? <AudienceStats contacts={contacts} total={total} /> : null}
          <ContactsCard
            contacts={contacts}
            total={total}
            canCapture={canCapture}
            onOpen={(contact) => setOpenId(contact.id)}
            onDelete={setToDelete}
          />
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

/** Totals over the whole list; "this week" and "links" can only count the contacts loaded (the newest). */
function AudienceStats({ contacts, total }: { contacts: Contact[]; total: number }) {
  const lastWeek = contacts.filter((contact) => Date.now() - Date.parse(contact.createdAt) < WEEK_MS).length;
  const sources = new Set(contacts.map((contact) => contact.sourceSlug).filter(Boolean)).size;
  return (
    <div className="stats au-stats">
      <Stat label="Contacts" value={formatNumber(total)} />
      <Stat
        label="New this week"
        value={formatNumber(lastWeek)}
        note={total > contacts.length ? 'among the newest 500' : undefined}
      />
      <Stat label="Links collecting" value={formatNumber(sources)} />
    </div>
  );
}
