import { useEffect, useRef, useState } from 'react';
import { ApiError, del, get, messageOf, patch, post } from '../../api/client';
import type { AudienceList, Broadcast, Segment } from '../../api/types';
import { Gate, UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Button,
  Card,
  EmptyState,
  formatDateTime,
  formatNumber,
  Loading,
  PageHeader,
  SelectField,
  TextArea,
  TextField,
} from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { ConfirmDialog, STATUS_WORDS, statusTone } from './confirm';
import './audience.css';

const POLL_MS = 1500;

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

  const broadcasts = list.data?.broadcasts ?? [];
  const segmentList = segments.data?.segments ?? [];
  const audienceCount = audience.data?.count;

  // While anything is sending, re-read those broadcasts until they settle.
  const sendingIds = broadcasts
    .filter((item) => item.status === 'sending')
    .map((item) => item.id)
    .join(',');
  const listRef = useRef(list);
  listRef.current = list;
  useEffect(() => {
    if (!sendingIds) return;
    const timer = setInterval(async () => {
      const fresh = await Promise.all(
        sendingIds.split(',').map((id) => get<Broadcast>(`/broadcasts/${id}`).catch(() => null)),
      );
      const current = listRef.current.data;
      if (!current) return;
      const byId = new Map(fresh.filter((item): item is Broadcast => item !== null).map((b) => [b.id, b]));
      listRef.current.setData({ broadcasts: current.broadcasts.map((item) => byId.get(item.id) ?? item) });
      for (const item of byId.values()) {
        if (item.status === 'sent') {
          const n = item.counts.sent;
          setNotice(`“${item.subject}” was sent to ${formatNumber(n)} ${n === 1 ? 'contact' : 'contacts'}.`);
        }
        if (item.status === 'failed') {
          setNotice(undefined);
          setFailure(`“${item.subject}” could not be delivered: the mail server refused every recipient.`);
        }
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [sendingIds]);

  const upsert = (saved: Broadcast) => {
    const current = list.data?.broadcasts ?? [];
    const exists = current.some((item) => item.id === saved.id);
    list.setData({
      broadcasts: exists ? current.map((item) => (item.id === saved.id ? saved : item)) : [saved, ...current],
    });
  };

  const recipientsOf = (broadcast: Broadcast): number | undefined => {
    if (broadcast.segmentId) return segmentList.find((segment) => segment.id === broadcast.segmentId)?.count;
    return audienceCount;
  };
  const segmentName = (id: string | null) =>
    id ? (segmentList.find((segment) => segment.id === id)?.name ?? 'A segment') : 'Everyone';

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

      <Card title="Send history">
        {list.loading && !list.data ? <Loading label="Loading broadcasts" /> : null}
        {list.data && broadcasts.length === 0 ? (
          <EmptyState title="No broadcasts yet">
            <p>
              Write a draft, check who it goes to, then send. Every email carries a one-click unsubscribe
              link, and people who unsubscribed are skipped.
            </p>
          </EmptyState>
        ) : null}
        {broadcasts.length > 0 ? (
          <div className="table-wrap au-wrap">
            <table className="broadcast-table au-stack">
              <thead>
                <tr>
                  <th scope="col">Subject</th>
                  <th scope="col">Status</th>
                  <th scope="col">Recipients</th>
                  <th scope="col">Sent</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {broadcasts.map((item) => (
                  <tr key={item.id} data-broadcast={item.id}>
                    <td>
                      <div className="broadcast-subject">{item.subject}</div>
                      <div className="muted small">To {segmentName(item.segmentId)}</div>
                    </td>
                    <td data-label="Status">
                      <Badge tone={statusTone(item.status)}>{STATUS_WORDS[item.status] ?? item.status}</Badge>
                    </td>
                    <td data-label="Recipients">
                      {item.status === 'draft' ? (
                        <span className="muted">Not sent</span>
                      ) : (
                        <Counts broadcast={item} />
                      )}
                    </td>
                    <td className="nowrap" data-label="Sent">
                      {formatDateTime(item.sentAt)}
                    </td>
                    <td className="au-row-actions">
                      {item.status === 'draft' && canSend ? (
                        <>
                          <Button variant="ghost" className="btn-small" onClick={() => setEditing(item)}>
                            Edit
                          </Button>
                          <Button variant="primary" className="btn-small" onClick={() => setToSend(item)}>
                            Send…
                          </Button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>

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

      <ConfirmDialog
        open={toSend !== null}
        title="Send this broadcast?"
        confirmLabel="Send now"
        danger={false}
        onClose={() => setToSend(null)}
        onConfirm={async () => {
          if (!toSend) return;
          try {
            const started = await post<Broadcast>(`/broadcasts/${toSend.id}/send`);
            upsert(started);
            setNotice(`Sending “${started.subject}”…`);
          } catch (err) {
            if (err instanceof ApiError && err.code === 'not_provisioned') {
              throw new Error(
                `${err.message}. This server cannot send email yet: the operator must set SMTP_URL and MAIL_FROM.`,
              );
            }
            throw err;
          }
        }}
      >
        {toSend ? (
          <SendSummary
            broadcast={toSend}
            recipients={recipientsOf(toSend)}
            segment={segmentName(toSend.segmentId)}
          />
        ) : null}
      </ConfirmDialog>
    </>
  );
}

function SendSummary({
  broadcast,
  recipients,
  segment,
}: {
  broadcast: Broadcast;
  recipients: number | undefined;
  segment: string;
}) {
  return (
    <>
      <p>
        <strong>“{broadcast.subject}”</strong> goes to{' '}
        {recipients === undefined ? (
          segment === 'Everyone' ? (
            'everyone on your list'
          ) : (
            `the segment ${segment}`
          )
        ) : (
          <strong>
            {formatNumber(recipients)} {recipients === 1 ? 'contact' : 'contacts'}
          </strong>
        )}
        {segment !== 'Everyone' && recipients !== undefined ? ` in ${segment}` : null}.
      </p>
      {recipients === 0 ? (
        <Banner kind="warning">Nobody matches yet, so this send would reach no one.</Banner>
      ) : null}
      <p className="muted">
        People who unsubscribed are skipped. A sent broadcast cannot be edited or recalled.
      </p>
    </>
  );
}

function Counts({ broadcast }: { broadcast: Broadcast }) {
  const { queued, sending, sent, failed, skipped } = broadcast.counts;
  const total = queued + sending + sent + failed + skipped;
  const done = sent + failed + skipped;
  return (
    <div>
      <div className="counts">
        <span>
          <strong>{formatNumber(sent)}</strong> sent
        </span>
        {failed > 0 ? (
          <span>
            <strong>{formatNumber(failed)}</strong> failed
          </span>
        ) : null}
        {skipped > 0 ? (
          <span>
            <strong>{formatNumber(skipped)}</strong> skipped
          </span>
        ) : null}
        {queued + sending > 0 ? (
          <span>
            <strong>{formatNumber(queued + sending)}</strong> queued
          </span>
        ) : null}
      </div>
      {broadcast.status === 'sending' && total > 0 ? (
        <progress className="send-progress" max={total} value={done} aria-label="Sending progress">
          {done} of {total}
        </progress>
      ) : null}
    </div>
  );
}

function BroadcastEditor({
  initial,
  segments,
  canSegment,
  audienceCount,
  onSaved,
  onCancel,
}: {
  initial: Broadcast | null;
  segments: Segment[];
  canSegment: boolean;
  audienceCount: number | undefined;
  onSaved: (broadcast: Broadcast, created: boolean) => void;
  onCancel: () => void;
}) {
  const [subject, setSubject] = useState(initial?.subject ?? '');
  const [html, setHtml] = useState(initial?.html ?? '');
  const [text, setText] = useState(initial?.text ?? '');
  const [segmentId, setSegmentId] = useState(initial?.segmentId ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setErrors({});
    setError(undefined);
    const local: Record<string, string> = {};
    if (!subject.trim()) local.subject = 'Write a subject line';
    if (!html.trim()) local.html = 'Write the email body';
    if (Object.keys(local).length > 0) return setErrors(local);
    const body = {
      subject,
      html,
      text: text.trim() ? text : null,
      segmentId: segmentId || null,
    };
    setBusy(true);
    try {
      const saved = initial
        ? await patch<Broadcast>(`/broadcasts/${initial.id}`, body)
        : await post<Broadcast>('/broadcasts', body);
      onSaved(saved, initial === null);
    } catch (err) {
      if (err instanceof ApiError && err.body.issues) setErrors(err.fieldErrors());
      else if (err instanceof ApiError && err.code === 'unknown_segment')
        setErrors({ segmentId: err.message });
      else setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title={initial ? 'Edit draft' : 'New broadcast'}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
        noValidate
      >
        {error ? <Banner kind="error">{error}</Banner> : null}
        <TextField
          label="Subject"
          value={subject}
          maxLength={200}
          onChange={(event) => setSubject(event.target.value)}
          error={errors.subject}
        />
        <div className="code-area">
          <TextArea
            label="Email body (HTML)"
            value={html}
            onChange={(event) => setHtml(event.target.value)}
            error={errors.html}
            hint="We add an unsubscribe link at the bottom of every email."
            placeholder="<h1>New video is out</h1><p>Watch it here…</p>"
          />
        </div>
        <TextArea
          label="Plain-text version (optional)"
          value={text}
          onChange={(event) => setText(event.target.value)}
          error={errors.text}
          hint="For mail apps that do not show HTML. Leave empty and we derive it from the HTML."
        />
        <SelectField
          label="Send to"
          value={segmentId}
          onChange={(event) => setSegmentId(event.target.value)}
          error={errors.segmentId}
          disabled={!canSegment}
          hint={
            canSegment && segments.length === 0
              ? 'Create a segment below to target part of your list.'
              : undefined
          }
        >
          <option value="">
            Everyone on the list{audienceCount === undefined ? '' : ` (${formatNumber(audienceCount)})`}
          </option>
          {segments.map((segment) => (
            <option key={segment.id} value={segment.id}>
              {segment.name} ({formatNumber(segment.count)})
            </option>
          ))}
        </SelectField>
        {canSegment ? null : <UpgradeNotice feature="audienceSegments" compact />}
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy}>
            {initial ? 'Save draft' : 'Create draft'}
          </Button>
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}

function filterChips(filter: Segment['filter']): string[] {
  const chips: string[] = [];
  if (filter.sourceSlug) chips.push(`Link /${filter.sourceSlug}`);
  if (filter.country) chips.push(`Country ${filter.country}`);
  if (filter.capturedFrom) chips.push(`From ${filter.capturedFrom.slice(0, 10)}`);
  if (filter.capturedTo) chips.push(`To ${filter.capturedTo.slice(0, 10)}`);
  return chips.length > 0 ? chips : ['Everyone'];
}

function Segments({
  segments,
  loading,
  error,
  onChange,
}: {
  segments: Segment[];
  loading: boolean;
  error: string | undefined;
  onChange: (segments: Segment[]) => void;
}) {
  const [name, setName] = useState('');
  const [sourceSlug, setSourceSlug] = useState('');
  const [country, setCountry] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [toDelete, setToDelete] = useState<Segment | null>(null);
  const [done, setDone] = useState<string>();

  const create = async () => {
    setErrors({});
    setFormError(undefined);
    setDone(undefined);
    if (!name.trim()) return setErrors({ name: 'Name the segment' });
    const filter: Record<string, string> = {};
    if (sourceSlug.trim()) filter.sourceSlug = sourceSlug.trim().replace(/^\//, '');
    if (country.trim()) filter.country = country.trim();
    if (from) filter.capturedFrom = from;
    if (to) filter.capturedTo = to;
    setBusy(true);
    try {
      const created = await post<Segment>('/segments', { name: name.trim(), filter });
      onChange([...segments, created]);
      setName('');
      setSourceSlug('');
      setCountry('');
      setFrom('');
      setTo('');
      setDone(
        `Segment “${created.name}” matches ${formatNumber(created.count)} ${created.count === 1 ? 'contact' : 'contacts'}.`,
      );
    } catch (err) {
      if (err instanceof ApiError && err.body.issues) setErrors(err.fieldErrors());
      else setFormError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p className="muted segment-intro">
        A segment is a saved filter over your audience. Counts are live: new contacts who match join it.
      </p>
      {error ? <Banner kind="error">{error}</Banner> : null}
      {loading ? <Loading label="Loading segments" /> : null}
      {segments.length > 0 ? (
        <ul className="segment-list">
          {segments.map((segment) => (
            <li key={segment.id}>
              <div className="segment-main">
                <div>
                  <span className="segment-name">{segment.name}</span>
                  <span className="muted">
                    {formatNumber(segment.count)} {segment.count === 1 ? 'contact' : 'contacts'}
                  </span>
                </div>
                <div className="segment-filters">
                  {filterChips(segment.filter).map((chip) => (
                    <Badge key={chip}>{chip}</Badge>
                  ))}
                </div>
              </div>
              <Button
                variant="ghost"
                className="btn-small"
                onClick={() => setToDelete(segment)}
                aria-label={`Delete segment ${segment.name}`}
              >
                Delete
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <h3 className="sub-heading">New segment</h3>
      {done ? <Banner kind="success">{done}</Banner> : null}
      {formError ? <Banner kind="error">{formError}</Banner> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
        noValidate
      >
        <div className="form-grid">
          <TextField
            label="Segment name"
            value={name}
            maxLength={100}
            onChange={(event) => setName(event.target.value)}
            error={errors.name}
          />
          <TextField
            label="Source link slug"
            value={sourceSlug}
            placeholder="e.g. summer-drop"
            onChange={(event) => setSourceSlug(event.target.value)}
            error={errors['filter.sourceSlug']}
          />
          <TextField
            label="Country"
            value={country}
            maxLength={2}
            placeholder="e.g. DE"
            hint="Two-letter code"
            onChange={(event) => setCountry(event.target.value.toUpperCase())}
            error={errors['filter.country']}
          />
          <TextField
            label="Captured from"
            type="date"
            value={from}
            onChange={(event) => setFrom(event.target.value)}
            error={errors['filter.capturedFrom']}
          />
          <TextField
            label="Captured to"
            type="date"
            value={to}
            onChange={(event) => setTo(event.target.value)}
            error={errors['filter.capturedTo']}
          />
        </div>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy}>
            Create segment
          </Button>
          <span className="muted small">Leave a filter empty to match everyone.</span>
        </div>
      </form>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this segment?"
        confirmLabel="Delete segment"
        onClose={() => setToDelete(null)}
        onConfirm={async () => {
          if (!toDelete) return;
          await del(`/segments/${toDelete.id}`);
          onChange(segments.filter((segment) => segment.id !== toDelete.id));
          setDone(`Segment “${toDelete.name}” deleted.`);
        }}
      >
        <p>
          <strong>{toDelete?.name}</strong> is removed. Its contacts stay on your list, and broadcasts already
          sent to it keep their history.
        </p>
      </ConfirmDialog>
    </>
  );
}
