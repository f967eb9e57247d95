import { type ReactNode, useMemo } from 'react';
import type { Analytics, Folder, Link, Outcomes } from '../../api/types';
import { ColumnChart, OutcomeSplit, Stat } from '../../components/charts';
import { UpgradeNotice } from '../../components/gate';
import { Card, EmptyState, formatNumber, formatRate, PageHeader } from '../../components/ui';
import { hashQuery } from '../../router';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import { shortDisplay } from '../links/common';
import { FolderFilter, TagFilter } from '../links/filters';
import { EscapeHeatmap } from './EscapeHeatmap';
import {
  AnalyticsTable,
  BreakdownCards,
  DailyClicksChart,
  LockedStat,
  NO_OUTCOMES,
  numeric,
  OutcomeStats,
  SourceStat,
  StatsView,
} from './sections';
import {
  hourLabel,
  OPEN_RATE_MEANS,
  openRate,
  PeriodPicker,
  periodOf,
  platformName,
  RateCell,
  reportedOf,
  SampledNote,
  setQuery,
} from './shared';
import './analytics.css';

export function AnalyticsPage({ path }: { params: Record<string, string>; path: string }) {
  const session = useAuthed();
  const query = hashQuery(path);
  const days = periodOf(query);
  const folderId = query.get('folder') ?? '';
  const tag = query.get('tag') ?? '';
  const search = new URLSearchParams({ days: String(days) });
  if (folderId) search.set('folderId', folderId);
  if (tag) search.set('tag', tag);
  const stats = useApi<Analytics>(`/analytics?${search}`);
  const links = useApi<{ links: Link[] }>('/links');
  const folders = useApi<{ folders: Folder[] }>('/folders');

  const tags = useMemo(
    () => [...new Set((links.data?.links ?? []).flatMap((link) => link.tags))].sort(),
    [links.data],
  );
  const idBySlug = useMemo(
    () => new Map((links.data?.links ?? []).map((link) => [link.slug, link])),
    [links.data],
  );
  const folderList = folders.data?.folders ?? [];
  const exportSearch = new URLSearchParams(search);
  exportSearch.set('format', 'csv');

  return (
    <div className="an-page">
      <PageHeader
        title="Analytics"
        subtitle="Every click on every link and where it came from; for taps (phones sent to an app), whether the app opened."
        actions={
          session.features.analyticsExport && stats.data?.configured ? (
            <a className="btn btn-secondary" href={`/api/analytics/export?${exportSearch}`} download>
              Export CSV
            </a>
          ) : null
        }
      />
      <div className="an-toolbar">
        <PeriodPicker days={days} onChange={(value) => setQuery(path, { days: String(value) })} />
        {folderList.length > 0 ? (
          <FolderFilter
            folders={folderList}
            value={folderId}
            onChange={(folder) => setQuery(path, { folder })}
          />
        ) : null}
        {tags.length > 0 || tag ? (
          <TagFilter
            tags={tags.map((name) => ({ name }))}
            value={tag}
            onChange={(value) => setQuery(path, { tag: value })}
          />
        ) : null}
      </div>
      <StatsView stats={stats}>
        {(data) => (
          <Overview
            data={data}
            days={days}
            idBySlug={idBySlug}
            filtered={Boolean(folderId || tag)}
            heatmap={
              <EscapeHeatmap
                search={search.toString()}
                platform={query.get('platform') ?? ''}
                onPlatform={(platform) => setQuery(path, { platform })}
              />
            }
          />
        )}
      </StatsView>
    </div>
  );
}

function Overview({
  data,
  days,
  idBySlug,
  filtered,
  heatmap,
}: {
  data: Analytics;
  days: number;
  idBySlug: Map<string, Link>;
  filtered: boolean;
  heatmap: ReactNode;
}) {
  const locked = data.upgrade !== undefined;
  return (
    <>
      <div className="stats">
        <Stat
          label="Clicks"
          value={formatNumber(data.total)}
          note={`Last ${days} days${filtered ? ', filtered' : ''}`}
        />
        <Stat
          label="Links clicked"
          value={formatNumber(data.perLink.length)}
          note="with at least one click"
        />
        <SourceStat sources={data.sources} />
        {locked ? <LockedStat label="App-open rate" /> : <OutcomeStats outcomes={data.outcomes} />}
      </div>
      <SampledNote sampled={data.sampled} />
      {locked ? (
        <>
          <UpgradeNotice feature="fullAnalytics" />
          <UpgradeNotice feature="analyticsExport" compact />
        </>
      ) : null}
      <TopLinks perLink={data.perLink} total={data.total} idBySlug={idBySlug} />
      {locked ? null : <FullSeries data={data} days={days} heatmap={heatmap} />}
    </>
  );
}

function TopLinks({
  perLink,
  total,
  idBySlug,
}: {
  perLink: Analytics['perLink'];
  total: number;
  idBySlug: Map<string, Link>;
}) {
  return (
    <Card title="Top links">
      {perLink.length === 0 ? (
        <EmptyState title="No clicks in this period">
          <p>
            Share a link from <a href="#/links">your links</a>: clicks appear here within a second or two.
          </p>
        </EmptyState>
      ) : (
        <AnalyticsTable columns={['Link', numeric('Clicks'), numeric('Share')]}>
          {perLink.slice(0, 20).map((row) => {
            const link = idBySlug.get(row.slug);
            return (
              <tr key={row.slug}>
                <td className="slug">
                  {link ? (
                    <span className="top-link">
                      <a href={`#/links/${encodeURIComponent(link.id)}/analytics`}>/{row.slug}</a>
                      <span className="muted">{shortDisplay(link.destination)}</span>
                    </span>
                  ) : (
                    <span>
                      /{row.slug} <span className="muted">(archived)</span>
                    </span>
                  )}
                </td>
                <td className="num">{formatNumber(row.clicks)}</td>
                <td className="num">{formatRate(total > 0 ? row.clicks / total : null)}</td>
              </tr>
            );
          })}
        </AnalyticsTable>
      )}
    </Card>
  );
}

/** Outcomes per platform, summed over the outcome rows; the platforms with most reports first. */
function platformOutcomes(data: Analytics): [string, Outcomes][] {
  const byPlatform = new Map<string, Outcomes>();
  for (const row of data.platformOutcomes ?? []) {
    const key = row.platform ?? '';
    const entry = byPlatform.get(key) ?? { ...NO_OUTCOMES };
    if (row.outcome === 'opened' || row.outcome === 'browser' || row.outcome === 'broken')
      entry[row.outcome] += row.clicks;
    byPlatform.set(key, entry);
  }
  return [...byPlatform].sort((a, b) => reportedOf(b[1]) - reportedOf(a[1]));
}

function FullSeries({ data, days, heatmap }: { data: Analytics; days: number; heatmap: ReactNode }) {
  const platformRows = platformOutcomes(data);
  return (
    <>
      <Card title="How taps ended">
        <OutcomeSplit outcomes={data.outcomes ?? NO_OUTCOMES} />
        {platformRows.length > 0 ? (
          <AnalyticsTable
            label="App-open rate per platform"
            columns={[
              'Platform',
              numeric('App-open rate'),
              numeric('Opened'),
              numeric('Browser'),
              numeric('Failed'),
            ]}
          >
            {platformRows.map(([platform, o]) => (
              <tr key={platform}>
                <td>{platformName(platform)}</td>
                <td className="num">
                  <RateCell rate={openRate(o)} />
                </td>
                <td className="num">{formatNumber(o.opened)}</td>
                <td className="num">{formatNumber(o.browser)}</td>
                <td className="num">{formatNumber(o.broken)}</td>
              </tr>
            ))}
          </AnalyticsTable>
        ) : null}
        <p className="an-note">
          App-open rate: {OPEN_RATE_MEANS}. It shows “—” until a tap reports an outcome.
        </p>
      </Card>
      {heatmap}
      <div className="an-grid">
        <Card title="Clicks per day">
          <DailyClicksChart data={data} days={days} />
        </Card>
        <Card title="Time of day">
          <ColumnChart
            label="Clicks by hour of the day (UTC)"
            points={(data.hourly ?? []).map((row) => ({ label: hourLabel(row.hour), value: row.clicks }))}
          />
        </Card>
        <BreakdownCards data={data} />
      </div>
    </>
  );
}
