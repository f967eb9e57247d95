import { useState } from 'react';
import { del, post } from '../../api/client';
import type { Segment } from '../../api/types';
import { ConfirmDialog, useWrite, WriteForm } from '../../components/confirm';
import { Badge, Banner, Button, Loading, TextField } from '../../components/ui';
import { contactCount } from './words';

/** A segment's filter as short labels; a segment without filters is everyone. */
function filterChips(filter: Segment['filter']): string[] {
  const chips: string[] = [];
  if (filter.sourceSlug) chips.push(`Link /${filter.sourceSlug}`);
  if (filter.country) chips.push(`Country ${filter.country}`);
  if (filter.capturedFrom) chips.push(`From ${filter.capturedFrom.slice(0, 10)}`);
  if (filter.capturedTo) chips.push(`To ${filter.capturedTo.slice(0, 10)}`);
  return chips.length > 0 ? chips : ['Everyone'];
}

/** The saved segments with their live counts, a form for a new one, and deleting one. */
export function Segments({
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
  const [toDelete, setToDelete] = useState<Segment | null>(null);
  const [done, setDone] = useState<string>();

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
                  <span className="muted">{contactCount(segment.count)}</span>
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
      <SegmentForm
        onStart={() => setDone(undefined)}
        onCreated={(created) => {
          onChange([...segments, created]);
          setDone(`Segment “${created.name}” matches ${contactCount(created.count)}.`);
        }}
      />
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

const EMPTY_FILTER = { sourceSlug: '', country: '', from: '', to: '' };

function SegmentForm({ onStart, onCreated }: { onStart: () => void; onCreated: (segment: Segment) => void }) {
  const [name, setName] = useState('');
  const [fields, setFields] = useState(EMPTY_FILTER);
  const submit = useWrite();
  const { errors } = submit;
  const set = (key: keyof typeof EMPTY_FILTER) => (value: string) =>
    setFields((current) => ({ ...current, [key]: value }));

  const create = () => {
    onStart();
    return submit.run(
      async () => {
        const created = await post<Segment>('/segments', { name: name.trim(), filter: filterOf(fields) });
        setName('');
        setFields(EMPTY_FILTER);
        onCreated(created);
      },
      name.trim() ? {} : { name: 'Name the segment' },
    );
  };

  return (
    <WriteForm
      write={submit}
      onSubmit={() => void create()}
      submitLabel="Create segment"
      actions={<span className="muted small">Leave a filter empty to match everyone.</span>}
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
          value={fields.sourceSlug}
          placeholder="e.g. summer-drop"
          onChange={(event) => set('sourceSlug')(event.target.value)}
          error={errors['filter.sourceSlug']}
        />
        <TextField
          label="Country"
          value={fields.country}
          maxLength={2}
          placeholder="e.g. DE"
          hint="Two-letter code"
          onChange={(event) => set('country')(event.target.value.toUpperCase())}
          error={errors['filter.country']}
        />
        <TextField
          label="Captured from"
          type="date"
          value={fields.from}
          onChange={(event) => set('from')(event.target.value)}
          error={errors['filter.capturedFrom']}
        />
        <TextField
          label="Captured to"
          type="date"
          value={fields.to}
          onChange={(event) => set('to')(event.target.value)}
          error={errors['filter.capturedTo']}
        />
      </div>
    </WriteForm>
  );
}

/** Only the filters filled in are sent: an empty one matches everyone. */
function filterOf(fields: typeof EMPTY_FILTER): Record<string, string> {
  const filter: Record<string, string> = {};
  if (fields.sourceSlug.trim()) filter.sourceSlug = fields.sourceSlug.trim().replace(/^\//, '');
  if (fields.country.trim()) filter.country = fields.country.trim();
  if (fields.from) filter.capturedFrom = fields.from;
  if (fields.to) filter.capturedTo = fields.to;
  return filter;
}
