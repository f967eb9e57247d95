import { useState } from 'react';
import { ApiError, patch, post } from '../../api/client';
import type { Broadcast, Segment } from '../../api/types';
import { issuesOf, useWrite, WriteForm } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import { Card, formatNumber, SelectField, TextArea, TextField } from '../../components/ui';

/** The server's refusals of a draft, at the field they are about. */
function draftFieldErrors(err: unknown): Record<string, string> {
  if (err instanceof ApiError && err.code === 'unknown_segment') return { segmentId: err.message };
  return issuesOf(err);
}

/** Writes a new draft or edits one (only drafts are editable; a sent broadcast is history). */
export function BroadcastEditor({
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
  const submit = useWrite(draftFieldErrors);
  const { errors } = submit;

  const missing: Record<string, string> = {};
  if (!subject.trim()) missing.subject = 'Write a subject line';
  if (!html.trim()) missing.html = 'Write the email body';

  const save = () =>
    submit.run(async () => {
      const body = { subject, html, text: text.trim() ? text : null, segmentId: segmentId || null };
      const saved = initial
        ? await patch<Broadcast>(`/broadcasts/${initial.id}`, body)
        : await post<Broadcast>('/broadcasts', body);
      onSaved(saved, initial === null);
    }, missing);

  return (
    <Card title={initial ? 'Edit draft' : 'New broadcast'}>
      <WriteForm
        write={submit}
        onSubmit={() => void save()}
        submitLabel={initial ? 'Save draft' : 'Create draft'}
        onCancel={onCancel}
      >
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
      </WriteForm>
    </Card>
  );
}
