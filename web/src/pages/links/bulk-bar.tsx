import { useEffect, useState } from 'react';
import { messageOf, post } from '../../api/client';
import type { Folder } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm';
import { UpgradeNotice } from '../../components/gate';
import { Banner, Button, formatNumber, SelectField, TextField } from '../../components/ui';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import './bulk.css';

/**
 * Bulk work on the links list (issue #34): the selection (rows of this page, or every link matching the
 * filters), the bar of actions on it, and a job's progress. Every action is one POST /api/bulk-actions;
 * up to 100 links answer at once, more answer with a job this bar follows until it ends.
 */

export interface BulkFilter {
  q?: string;
  tag?: string;
  folderId?: string;
  health?: string;
  archived?: boolean;
}

/** What is selected: some rows by id, or every link matching the filter (frozen by the server when asked). */
export interface Selection {
  ids: Set<string>;
  allMatching: boolean;
}

type Action =
  | { type: 'add_tags'; tags: string[] }
  | { type: 'remove_tags'; tags: string[] }
  | { type: 'move'; folderId: string | null }
  | { type: 'archive' }
  | { type: 'unarchive' };

interface BulkAnswer {
  id: string | null;
  status: 'queued' | 'running' | 'done' | 'failed';
  total: number;
  processed: number;
  changed: number;
  unchanged: number;
  failed: number;
  results: { linkId: string; outcome: string; error?: { message: string } }[];
}

const POLL_MS = 1000;
const VERBS: Record<Action['type'], string> = {
  add_tags: 'Tagging',
  remove_tags: 'Untagging',
  move: 'Moving',
  archive: 'Archiving',
  unarchive: 'Restoring',
};

export const noSelection = (): Selection => ({ ids: new Set(), allMatching: false });

/** The export's query: the selected ids, or the filters. */
function exportHref(selection: Selection, filter: BulkFilter): string {
  const query = new URLSearchParams();
  if (!selection.allMatching) query.set('ids', [...selection.ids].join(','));
  else
    for (const [key, value] of Object.entries(filter)) if (value !== undefined) query.set(key, String(value));
  return `/api/links/export.csv?${query}`;
}

/** A job's progress, read every second until it ends. */
function JobProgress({ id, verb, onEnd }: { id: string; verb: string; onEnd: (job: BulkAnswer) => void }) {
  const loaded = useApi<BulkAnswer>(`/bulk-actions/${encodeURIComponent(id)}`);
  const job = loaded.data;
  const ended = job?.status === 'done' || job?.status === 'failed';
  const { reload } = loaded;
  useEffect(() => {
    if (ended) return;
    const timer = setInterval(() => void reload(), POLL_MS);
    return () => clearInterval(timer);
  }, [ended, reload]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the job ends
  useEffect(() => {
    if (job && ended) onEnd(job);
  }, [ended]);
  if (!job) return loaded.error ? <Banner>{loaded.error}</Banner> : null;
  return (
    <div className="lk-bulk-progress">
      <label>
        <span>
          {verb} {formatNumber(job.processed)} of {formatNumber(job.total)} links…
        </span>
        <progress aria-label="Bulk action progress" max={Math.max(job.total, 1)} value={job.processed} />
      </label>
    </div>
  );
}

function summary(job: BulkAnswer): string {
  const failures = job.results.filter((r) => r.outcome === 'failed');
  const first = failures[0]?.error?.message;
  return (
    `Done: ${formatNumber(job.changed)} changed, ${formatNumber(job.unchanged)} already so, ` +
    `${formatNumber(job.failed)} failed.${first ? ` First failure: ${first}` : ''}`
  );
}

export function BulkBar({
  selection,
  onSelection,
  pageIds,
  matching,
  filter,
  folders,
  showArchived,
  onChanged,
}: {
  selection: Selection;
  onSelection: (next: Selection) => void;
  pageIds: string[];
  /** How many links match the filters (all pages); undefined while unknown. */
  matching: number | undefined;
  filter: BulkFilter;
  /** The organization's folders, or null when the plan has none. */
  folders: Folder[] | null;
  showArchived: boolean;
  onChanged: () => void;
}) {
  // Changing many links at once is a plan power (bulkCreate): other plans may still export them.
  const canChange = useAuthed().features.bulkCreate;
  const [tag, setTag] = useState('');
  const [folder, setFolder] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [job, setJob] = useState<{ id: string; verb: string } | null>(null);
  const [confirming, setConfirming] = useState(false);

  const count = selection.allMatching ? (matching ?? 0) : selection.ids.size;
  const wholePage = pageIds.length > 0 && pageIds.every((id) => selection.ids.has(id));
  const more = matching !== undefined && matching > pageIds.length;

  const ended = (answer: BulkAnswer) => {
    setJob(null);
    setDone(summary(answer));
    onSelection(noSelection());
    onChanged();
  };

  async function run(action: Action): Promise<void> {
    setError(null);
    setDone(null);
    setBusy(true);
    try {
      const body = {
        selection: selection.allMatching ? { filter } : { ids: [...selection.ids] },
        action,
      };
      const answer = await post<BulkAnswer>('/bulk-actions', body);
      if (answer.id && answer.status !== 'done') setJob({ id: answer.id, verb: VERBS[action.type] });
      else ended(answer);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const tags = tag
    .split(/[|,;]/)
    .map((t) => t.trim())
    .filter(Boolean);

  if (count === 0 && !job) {
    return done ? (
      <div className="lk-dismissable">
        <Banner kind="success">
          {done}{' '}
          <button type="button" className="lk-link-btn" onClick={() => setDone(null)}>
            Dismiss
          </button>
        </Banner>
      </div>
    ) : null;
  }
  return (
    <section className="lk-bulk" aria-label="Bulk actions">
      <div className="lk-bulk-head">
        <p className="lk-bulk-count" aria-live="polite">
          <strong>{formatNumber(count)}</strong> {count === 1 ? 'link' : 'links'} selected
          {selection.allMatching ? ' (every link matching the filters)' : ''}
        </p>
        {wholePage && more && !selection.allMatching ? (
          <Button
            variant="ghost"
            className="btn-small"
            onClick={() => onSelection({ ids: new Set(), allMatching: true })}
          >
            Select all {formatNumber(matching ?? 0)} links matching this filter
          </Button>
        ) : null}
        <Button
          variant="ghost"
          className="btn-small"
          onClick={() => onSelection(noSelection())}
          disabled={!!job}
        >
          Clear selection
        </Button>
      </div>
      {job ? <JobProgress id={job.id} verb={job.verb} onEnd={ended} /> : null}
      {error ? <Banner>{error}</Banner> : null}
      {job ? null : (
        <div className="lk-bulk-actions">
          {canChange ? null : <UpgradeNotice feature="bulkCreate" compact />}
          {canChange ? (
            <>
              <div className="lk-bulk-group">
                <TextField
                  label="Tags to add or remove"
                  placeholder="spring, promo"
                  value={tag}
                  onChange={(event) => setTag(event.target.value)}
                />
                <Button
                  className="btn-small"
                  busy={busy}
                  disabled={tags.length === 0}
                  onClick={() => void run({ type: 'add_tags', tags })}
                >
                  Add tag
                </Button>
                <Button
                  className="btn-small"
                  disabled={busy || tags.length === 0}
                  onClick={() => void run({ type: 'remove_tags', tags })}
                >
                  Remove tag
                </Button>
              </div>
              {folders ? (
                <div className="lk-bulk-group">
                  <SelectField
                    label="Move to folder"
                    value={folder}
                    onChange={(event) => setFolder(event.target.value)}
                  >
                    <option value="">No folder</option>
                    {folders.map((f) => (
                      <option key={f.id} value={f.id}>
                        {f.name}
                      </option>
                    ))}
                  </SelectField>
                  <Button
                    className="btn-small"
                    disabled={busy}
                    onClick={() => void run({ type: 'move', folderId: folder || null })}
                  >
                    Move
                  </Button>
                </div>
              ) : null}
              <div className="lk-bulk-group">
                {showArchived ? (
                  <Button
                    className="btn-small"
                    disabled={busy}
                    onClick={() => void run({ type: 'unarchive' })}
                  >
                    Restore
                  </Button>
                ) : (
                  <Button
                    variant="ghost"
                    className="btn-small lk-btn-quiet-danger"
                    disabled={busy}
                    onClick={() => setConfirming(true)}
                  >
                    Archive
                  </Button>
                )}
              </div>
            </>
          ) : null}
          <div className="lk-bulk-group">
            <a className="btn btn-secondary btn-small" href={exportHref(selection, filter)} download>
              Export CSV
            </a>
          </div>
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Archive ${formatNumber(count)} ${count === 1 ? 'link' : 'links'}?`}
        confirmLabel="Archive"
        onClose={() => setConfirming(false)}
        onConfirm={() => run({ type: 'archive' })}
      >
        <p>
          Archived links leave this list and free their place under your plan’s cap. They keep redirecting,
          and you can restore them from Archived links.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Every link matching the filters, counted only when someone may select them all (the page is selected). */
export function useMatchingCount(
  path: string,
  wanted: boolean,
  known: number | undefined,
): number | undefined {
  const loaded = useApi<{ links: unknown[] }>(wanted && known === undefined ? path : null);
  return known ?? loaded.data?.links.length;
}
