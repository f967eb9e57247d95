import { useState } from 'react';
import type { AudienceList, Broadcast, Segment } from '../../api/types';
import { Gate, UpgradeNotice } from '../../components/gate';
import { Banner, Button, Card, PageHeader } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { BroadcastEditor } from './BroadcastEditor';
import { BroadcastList } from './BroadcastList';
import { Segments } from './Segments';
import { SendDialog, useSendProgress } from './SendDialog';
import { contactCount } from './words';
import './audience.css';

export function BroadcastsPage(_props: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const canSend = session.features.broadcasts;
  const canSegment = session.features.audienceSegments;
  const list = useApi<{ broadcasts: Broadcast[] }>('/broadcasts');
  const audience = useApi<AudienceList>('/audience');
  const segments = useApi<{ segments: Segment[] }>(canSegment ? '/segments' : null);
  const [editing, setEditing] = useState<Broadcast | 'new' | null>(null);
  const [toSend, setToSend] = useState<Broadcast | null>(null);
  const [notice, setNotice] = useState<string>();
  const [failure, setFailure] = useState<string>();

  const segmentList = segments.data?.segments ?? [];
  const audienceCount = audience.data?.count;

  useSendProgress(list, (item) => {
    if (item.status === 'sent') {
      setNotice(`“${item.subject}” was sent to ${contactCount(item.counts.sent)}.`);
    } else {
      setNotice(undefined);
      setFailure(`“${item.subject}” could not be delivered: the mail server refused every recipient.`);
    }
  });

  const upsert = (saved: Broadcast) => {
    const current = list.data?.broadcasts ?? [];
    const exists = current.some((item) => item.id === saved.id);
    list.setData({
      broadcasts: exists ? current.map((item) => (item.id === saved.id ? saved : item)) : [saved, ...current],
    });
  };

  const segmentOf = (broadcast: Broadcast) =>
    segmentList.find((segment) => segment.id === broadcast.segmentId);
  // Segments are not loaded without the feature, so a targeted draft names no segment.
  const audienceOf = (broadcast: Broadcast) =>
    broadcast.segmentId ? (segmentOf(broadcast)?.name ?? 'A segment') : 'Everyone';
  const recipientsOf = (broadcast: Broadcast) =>
    broadcast.segmentId ? segmentOf(broadcast)?.count : audienceCount;

  return (
    <>
      <PageHeader
        title="Broadcasts"
        subtitle="Email everyone on your audience list, or one segment of it."
        actions={
          canSend && editing === null ? (
            <Button variant="primary" onClick={() => setEditing('new')}>
              New broadcast
            </Button>
          ) : null
        }
      />
      {canSend ? null : <UpgradeNotice feature="broadcasts" />}
      {notice ? <Banner kind={notice.startsWith('Sending') ? 'info' : 'success'}>{notice}</Banner> : null}
      {failure ? <Banner kind="error">{failure}</Banner> : null}
      {list.error ? <Banner kind="error">{list.error}</Banner> : null}

      {editing !== null && canSend ? (
        <BroadcastEditor
          key={editing === 'new' ? 'new' : editing.id}
          initial={editing === 'new' ? null : editing}
          segments={segmentList}
          canSegment={canSegment}
          audienceCount={audienceCount}
          onCancel={() => setEditing(null)}
          onSaved={(saved, created) => {
            upsert(saved);
            setEditing(null);
            setNotice(created ? `Draft “${saved.subject}” saved.` : `Draft “${saved.subject}” updated.`);
          }}
        />
      ) : null}

      <BroadcastList
        broadcasts={list.data?.broadcasts ?? []}
        loading={list.loading}
        loaded={list.data !== undefined}
        canSend={canSend}
        audienceOf={audienceOf}
        onEdit={setEditing}
        onSend={setToSend}
      />

      <Card title="Segments">
        <Gate feature="audienceSegments">
          <Segments
            segments={segmentList}
            loading={segments.loading && !segments.data}
            error={segments.error}
            onChange={(next) => segments.setData({ segments: next })}
          />
        </Gate>
      </Card>

      <SendDialog
        broadcast={toSend}
        recipients={toSend ? recipientsOf(toSend) : undefined}
        audience={toSend ? audienceOf(toSend) : 'Everyone'}
        onClose={() => setToSend(null)}
        onStarted={(started) => {
          upsert(started);
          setNotice(`Sending “${started.subject}”…`);
        }}
      />
    </>
  );
}
