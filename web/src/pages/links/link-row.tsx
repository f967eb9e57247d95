import { useState } from 'react';
import { messageOf, post } from '../../api/client';
import type { Link } from '../../api/types';
import { Badge, Button, CopyButton, formatDate, formatNumber } from '../../components/ui';
import { useApi } from '../../use-api';
import { PowerBadges, platformName, shortDisplay } from './common';
import { HealthBadge, type HealthFilterValue } from './health';

/** One row of the links list, and what it needs: the list's hash routes and each link's 30-day numbers. */

export interface LinkFilters {
  q: string;
  tag: string;
  folder: string;
  archived?: boolean;
  /** Destination health: only the links whose destination is in this state. */
  health?: HealthFilterValue;
}

/** The hash route for a set of filters: `/links?q=..&tag=..&folder=..&health=..&show=archived`. */
export function linksPath(filters: LinkFilters): string {
  const query = new URLSearchParams();
  if (filters.q) query.set('q', filters.q);
  if (filters.tag) query.set('tag', filters.tag);
  if (filters.folder) query.set('folder', filters.folder);
  if (filters.health) query.set('health', filters.health);
  if (filters.archived) query.set('show', 'archived');
  const text = query.toString();
  return text ? `/links?${text}` : '/links';
}

export interface RowStats {
  clicks: number;
  appOpenRate: number | null;
}

/** Clicks over the last 30 days and the app-open rate of the links shown, in one call per page. */
export function useLinkListStats(links: Link[]): Map<string, RowStats> {
  const ids = links.map((link) => link.id).join(',');
  const loaded = useApi<{ stats: ({ linkId: string } & RowStats)[] }>(ids ? `/links/stats?ids=${ids}` : null);
  return new Map((loaded.data?.stats ?? []).map((row) => [row.linkId, row]));
}

function NoValue({ label }: { label: string }) {
  return (
    <span className="muted">
      <span aria-hidden="true">—</span>
      <span className="sr-only">{label}</span>
    </span>
  );
}

function TagList({ tags, className = '' }: { tags: string[]; className?: string }) {
  return (
    <span className={`lk-tag-list ${className}`.trim()}>
      {tags.map((t) => (
        <a key={t} className="lk-tag-chip" href={`#${linksPath({ q: '', tag: t, folder: '' })}`}>
          {t}
        </a>
      ))}
    </span>
  );
}

export function LinkRow({
  link,
  folderName,
  stats,
  onArchive,
  onRestored,
  selected,
  onSelect,
}: {
  link: Link;
  folderName: string | undefined;
  stats: RowStats | undefined;
  onArchive: () => void;
  /** After a restore attempt: null when it worked, else what to tell the person. */
  onRestored: (error: string | null) => void;
  /** Bulk work (bulk-bar.tsx): whether the row is selected, and the checkbox's change. */
  selected: boolean;
  onSelect: (selected: boolean) => void;
}) {
  const [restoring, setRestoring] = useState(false);
  const name = shortDisplay(link.shortUrl);
  async function restore() {
    setRestoring(true);
    try {
      await post(`/links/${link.id}/unarchive`);
      onRestored(null);
    } catch (error) {
      onRestored(messageOf(error));
    } finally {
      setRestoring(false);
    }
  }
  // The row's actions: under the link in the table, at the end of the card on a phone (links.css).
  const actions = (className: string) => (
    <div className={className}>
      <a className="btn btn-secondary btn-small" href={`#/links/${link.id}`}>
        Edit<span className="sr-only"> {name}</span>
      </a>
      <a className="btn btn-ghost btn-small" href={`#/links/${link.id}/analytics`}>
        Analytics<span className="sr-only"> for {name}</span>
      </a>
      {link.archived ? (
        <Button variant="secondary" className="btn-small" busy={restoring} onClick={restore}>
          Restore<span className="sr-only"> {name}</span>
        </Button>
      ) : (
        <Button variant="ghost" className="btn-small lk-btn-quiet-danger" onClick={onArchive}>
          Archive<span className="sr-only"> {name}</span>
        </Button>
      )}
    </div>
  );
  return (
    <tr>
      <td className="lk-cell-select">
        <input
          type="checkbox"
          aria-label={`Select ${name}`}
          checked={selected}
          onChange={(event) => onSelect(event.target.checked)}
        />
      </td>
      <td className="lk-cell-link">
        <div className="lk-short-cell">
          {/* Host and slug apart: a narrow cell may put the slug under its host, never break inside it. */}
          <a href={`#/links/${link.id}`} className="lk-short-link">
            <span className="lk-short-host">{name.slice(0, name.lastIndexOf('/') + 1)}</span>
            <wbr />
            <span className="lk-short-slug">{name.slice(name.lastIndexOf('/') + 1)}</span>
          </a>
          <CopyButton text={link.shortUrl} />
          <PowerBadges link={link} />
        </div>
        <div className="lk-dest-cell">
          {link.platformKey ? <Badge tone="brand">{platformName(link.platformKey)}</Badge> : null}
          <span className="truncate lk-dest-text" title={link.destination}>
            <span className="sr-only">Goes to </span>
            {link.destination}
          </span>
        </div>
        <HealthBadge link={link} />
        {folderName ? <span className="lk-folder-name">in {folderName}</span> : null}
        {/* Where the table has no room for a Tags column (a 1024 px screen), the tags go under the link. */}
        {link.tags.length > 0 ? <TagList tags={link.tags} className="lk-tags-inline" /> : null}
        {actions('lk-row-actions lk-actions-inline')}
      </td>
      <td className="lk-cell-tags">
        {link.tags.length > 0 ? <TagList tags={link.tags} /> : <NoValue label="No tags" />}
      </td>
      <td className="lk-cell-num">
        <span className="lk-num-label">Clicks (30 days): </span>
        {stats ? formatNumber(stats.clicks) : <NoValue label="Not loaded" />}
      </td>
      <td className="lk-cell-num">
        <span className="lk-num-label">App-open rate: </span>
        {stats && stats.appOpenRate !== null ? (
          `${Math.round(stats.appOpenRate * 100)} %`
        ) : (
          <NoValue label="No app-open data yet" />
        )}
      </td>
      <td className="lk-cell-date">
        <time dateTime={link.createdAt}>{formatDate(link.createdAt)}</time>
      </td>
      <td className="lk-cell-actions">{actions('lk-row-actions')}</td>
    </tr>
  );
}
