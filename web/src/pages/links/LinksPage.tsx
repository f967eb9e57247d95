import { useEffect, useMemo, useState } from 'react';
import { LINK_CAPS } from '../../../../src/tenancy/plans.js';
import type { Folder, Link } from '../../api/types';
import {
  Banner,
  Button,
  Card,
  EmptyState,
  formatNumber,
  Loading,
  PageHeader,
  SelectField,
  TextField,
} from '../../components/ui';
import { TIER_NAMES } from '../../plans';
import { hashQuery } from '../../router';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { OPEN_RATE_MEANS } from '../analytics/shared';
import { BulkBar, type BulkFilter, noSelection, type Selection, useMatchingCount } from './bulk-bar';
import { ArchiveDialog, shortDisplay } from './common';
import { FolderFilter, TagFilter } from './filters';
import { HealthFilter, healthFilterOf } from './health';
import { type LinkFilters, LinkRow, linksPath, useLinkListStats } from './link-row';
import './links.css';

const PAGE_SIZE = 50;

/** Typing in the search box rewrites the hash in place, without a history entry per keystroke. */
function replaceHash(path: string): void {
  const url = new URL(window.location.href);
  url.hash = path;
  if (url.href !== window.location.href) window.location.replace(url.href);
}

export function LinksPage({ path }: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const hasFolders = session.features.folders;
  const query = hashQuery(path);
  const q = query.get('q') ?? '';
  const tag = query.get('tag') ?? '';
  const folder = hasFolders ? (query.get('folder') ?? '') : '';
  // Destination health (issue #33): only the links whose destination is down, OK or not checked yet.
  const health = healthFilterOf(query.get('health'));
  const flash = query.get('archived');
  // The Archived filter (issue #20): the archived links instead of the live ones, each with Restore.
  const showArchived = query.get('show') === 'archived';

  const [search, setSearch] = useState(q);
  const [offset, setOffset] = useState(0);
  const [archiving, setArchiving] = useState<Link | null>(null);
  const [archivedNote, setArchivedNote] = useState<string | null>(flash ? `${flash} was archived.` : null);

  // The search box follows the hash (back button, a shared URL) and writes it after a short pause.
  useEffect(() => setSearch((current) => (current.trim() === q ? current : q)), [q]);
  useEffect(() => {
    if (search.trim() === q) return;
    const timer = setTimeout(
      () => replaceHash(linksPath({ q: search.trim(), tag, folder, health, archived: showArchived })),
      250,
    );
    return () => clearTimeout(timer);
  }, [search, q, tag, folder, health, showArchived]);
  // A new filter starts at the first page, with nothing selected.
  const [selection, setSelection] = useState<Selection>(noSelection);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filters are the trigger
  useEffect(() => {
    setOffset(0);
    setSelection(noSelection());
  }, [q, tag, folder, health, showArchived]);

  const apiQuery = new URLSearchParams({ limit: String(PAGE_SIZE + 1), offset: String(offset) });
  if (q) apiQuery.set('q', q);
  if (tag) apiQuery.set('tag', tag);
  if (folder) apiQuery.set('folderId', folder);
  if (health) apiQuery.set('health', health);
  if (showArchived) apiQuery.set('archived', 'true');
  const list = useApi<{ links: Link[] }>(`/links?${apiQuery}`);
  // Every live link, for the count against the plan cap and the tag filter's choices.
  const all = useApi<{ links: Link[] }>('/links');
  const folders = useApi<{ folders: Folder[] }>(hasFolders ? '/folders' : null);

  const liveCount = all.data?.links.length;
  const cap = LINK_CAPS[session.org.tier];
  const tags = useMemo(() => {
    const counts = new Map<string, number>();
    for (const link of all.data?.links ?? []) {
      for (const t of link.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => a[0].localeCompare(b[0]));
  }, [all.data]);
  const folderNames = new Map((folders.data?.folders ?? []).map((f) => [f.id, f.name]));

  const filtering = q !== '' || tag !== '' || folder !== '' || health !== '' || showArchived;
  const rows = list.data?.links.slice(0, PAGE_SIZE) ?? [];
  const stats = useLinkListStats(rows);
  const [restoreError, setRestoreError] = useState<string | null>(null);
  const hasMore = (list.data?.links.length ?? 0) > PAGE_SIZE;
  // Bulk work (issue #34): the filters as the bulk actions take them, and how many links they match.
  const bulkFilter: BulkFilter = {
    ...(q ? { q } : {}),
    ...(tag ? { tag } : {}),
    ...(folder ? { folderId: folder } : {}),
    ...(health ? { health } : {}),
    ...(showArchived ? { archived: true } : {}),
  };
  const pageIds = rows.map((link) => link.id);
  const pageSelected = pageIds.length > 0 && pageIds.every((id) => selection.ids.has(id));
  const matchingQuery = new URLSearchParams(apiQuery);
  matchingQuery.delete('limit');
  matchingQuery.delete('offset');
  const matching = useMatchingCount(
    `/links?${matchingQuery}`,
    pageSelected && (hasMore || offset > 0),
    filtering ? undefined : liveCount,
  );
  const select = (ids: string[], on: boolean) => {
    const next = new Set(selection.allMatching ? pageIds : selection.ids);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    setSelection({ ids: next, allMatching: false });
  };
  const reloadLists = () => {
    void list.reload();
    void all.reload();
  };
  const setFilter = (next: Partial<LinkFilters>) =>
    replaceHash(linksPath({ q, tag, folder, health, archived: showArchived, ...next }));

  return (
    <div className="lk-links-page">
      <PageHeader
        title="Links"
        subtitle="Smart links that open the app from Instagram and TikTok, and show you what happened."
        actions={
          <a className="btn btn-primary" href="#/links/new">
            New link
          </a>
        }
      />

      {liveCount !== undefined ? (
        <CapMeter count={liveCount} cap={cap} tier={TIER_NAMES[session.org.tier]} />
      ) : null}
      {archivedNote ? (
        <div className="lk-dismissable">
          <Banner kind="success">
            {archivedNote} It is hidden from this list and keeps redirecting.{' '}
            <button type="button" className="lk-link-btn" onClick={() => setArchivedNote(null)}>
              Dismiss
            </button>
          </Banner>
        </div>
      ) : null}

      <Card className="lk-list-card">
        <search className="toolbar lk-links-toolbar" aria-label="Filter links">
          <TextField
            label="Search"
            type="search"
            placeholder="Slug or destination"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
          <TagFilter
            tags={tags.map(([name, count]) => ({ name, count }))}
            value={tag}
            onChange={(value) => setFilter({ tag: value })}
          />
          <SelectField
            label="Show"
            value={showArchived ? 'archived' : 'live'}
            onChange={(event) => setFilter({ archived: event.target.value === 'archived' })}
          >
            <option value="live">Live links</option>
            <option value="archived">Archived links</option>
          </SelectField>
          <HealthFilter value={health} onChange={(value) => setFilter({ health: value })} />
          {hasFolders ? (
            <FolderFilter
              folders={folders.data?.folders ?? []}
              value={folder}
              onChange={(value) => setFilter({ folder: value })}
            />
          ) : null}
          {filtering ? (
            <Button
              variant="ghost"
              className="lk-toolbar-clear"
              onClick={() => {
                setSearch('');
                replaceHash('/links');
              }}
            >
              Clear filters
            </Button>
          ) : null}
        </search>

        <BulkBar
          selection={selection}
          onSelection={setSelection}
          pageIds={pageIds}
          matching={matching}
          filter={bulkFilter}
          folders={hasFolders ? (folders.data?.folders ?? []) : null}
          showArchived={showArchived}
          onChanged={reloadLists}
        />
        {list.error ? <Banner>{list.error}</Banner> : null}
        {restoreError ? <Banner>{restoreError}</Banner> : null}
        {list.loading && !list.data ? <Loading label="Loading links" /> : null}
        {list.data && rows.length === 0 && !filtering && offset === 0 ? (
          <EmptyState title="Create your first smart link">
            <p>
              Paste a YouTube, Spotify or shop link: linkhop opens it in the app, even from inside Instagram
              and TikTok, and counts every click.
            </p>
            <a className="btn btn-primary" href="#/links/new">
              Create a link
            </a>
          </EmptyState>
        ) : null}
        {list.data && rows.length === 0 && filtering ? (
          <EmptyState
            title={
              showArchived
                ? 'No archived links here'
                : health === 'down'
                  ? 'No destination is down'
                  : 'No links match these filters'
            }
          >
            <p>
              {showArchived
                ? 'Archived links keep redirecting; they show here so you can restore them.'
                : health === 'down'
                  ? 'linkhop checks every destination now and then; a link shows here when its destination stops working.'
                  : 'Try another search, or clear the filters to see every link.'}
            </p>
          </EmptyState>
        ) : null}
        {rows.length > 0 ? (
          <div className="table-wrap">
            <table className="lk-links-table">
              <caption className="sr-only">
                {showArchived
                  ? 'Archived links'
                  : filtering
                    ? 'Links matching the filters'
                    : 'Your live links'}
                , newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col" className="lk-col-select">
                    <input
                      type="checkbox"
                      aria-label="Select all links on this page"
                      checked={pageSelected || selection.allMatching}
                      onChange={(event) => select(pageIds, event.target.checked)}
                    />
                  </th>
                  <th scope="col">Link and destination</th>
                  <th scope="col" className="lk-col-tags">
                    Tags
                  </th>
                  <th scope="col" className="lk-col-num">
                    {/* A no-break space: on two lines it reads "Clicks / (30 days)", never "(30 / days)". */}
                    Clicks (30{'\u00a0'}days)
                  </th>
                  <th scope="col" className="lk-col-num">
                    App-open rate
                  </th>
                  <th scope="col" className="lk-col-date">
                    Created
                  </th>
                  <th scope="col" className="lk-col-actions">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((link) => (
                  <LinkRow
                    key={link.id}
                    link={link}
                    folderName={link.folderId ? folderNames.get(link.folderId) : undefined}
                    stats={stats.get(link.id)}
                    onArchive={() => setArchiving(link)}
                    selected={selection.allMatching || selection.ids.has(link.id)}
                    onSelect={(on) => select([link.id], on)}
                    onRestored={(error) => {
                      setRestoreError(error);
                      void list.reload();
                      void all.reload();
                    }}
                  />
                ))}
              </tbody>
            </table>
            <p className="lk-table-note">
              Last 30 days. A click is any visit of the short link; app-open rate: {OPEN_RATE_MEANS}.
            </p>
          </div>
        ) : null}
        {offset > 0 || hasMore ? (
          <nav className="lk-pager" aria-label="Pages">
            <Button
              className="btn-small"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
            >
              Previous
            </Button>
            <span className="muted">
              {formatNumber(offset + 1)}–{formatNumber(offset + rows.length)}
            </span>
            <Button className="btn-small" disabled={!hasMore} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Next
            </Button>
          </nav>
        ) : null}
      </Card>

      <ArchiveDialog
        link={archiving}
        onClose={() => setArchiving(null)}
        onArchived={(link) => {
          setArchiving(null);
          setArchivedNote(`${shortDisplay(link.shortUrl)} was archived.`);
          void list.reload();
          void all.reload();
        }}
      />
    </div>
  );
}

function CapMeter({ count, cap, tier }: { count: number; cap: number; tier: string }) {
  const ratio = Math.min(1, count / cap);
  const full = count >= cap;
  const near = !full && ratio >= 0.8;
  return (
    <div className="lk-cap">
      <div className="lk-cap-line">
        <span>
          <strong>{formatNumber(count)}</strong> of {formatNumber(cap)} live links on {tier}
        </span>
        {full || near ? (
          <a href="#/settings" className="lk-cap-upgrade">
            {full ? 'Limit reached: see plans' : 'See plans'}
          </a>
        ) : null}
      </div>
      <div className={`lk-cap-track${full ? ' lk-cap-full' : near ? ' lk-cap-near' : ''}`} aria-hidden="true">
        <span className="lk-cap-fill" style={{ width: `${count > 0 ? Math.max(ratio * 100, 1.5) : 0}%` }} />
      </div>
      {full ? (
        <p className="lk-cap-note">
          New links are refused until you archive one or upgrade. Archived links keep redirecting.
        </p>
      ) : null}
    </div>
  );
}
