import { useMemo } from 'react';
import type { Analytics, Folder, Link } from '../../api/types';
import { BarList, ColumnChart, OutcomeSplit, Stat } from '../../components/charts';
import { UpgradeNotice } from '../../components/gate';
import {
  Banner,
  Card,
  EmptyState,
  formatNumber,
  formatRate,
  Loading,
  PageHeader,
  SelectField,
} from '../../components/ui';
import { hashQuery } from '../../router';
import { useAuthed } from '../../session';
import { useApi } from '../../use-api';
import {
  countryName,
  dayLabel,
  deviceName,
  hourLabel,
  NotConnected,
  openRate,
  PeriodPicker,
  periodOf,
  platformName,
  RateCell,
  reportedOf,
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
        subtitle="Every tap on every link: where it came from and whether the app opened."
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
          <SelectField
            label="Folder"
            value={folderId}
            onChange={(event) => setQuery(path, { folder: event.target.value })}
          >
            <option value="">All folders</option>
            {folderList.map((folder) => (
              <option key={folder.id} value={folder.id}>
                {folder.name}
              </option>
            ))}
          </SelectField>
        ) : null}
        {tags.length > 0 || tag ? (
          <SelectField
            label="Tag"
            value={tag}
            onChange={(event) => setQuery(path, { tag: event.target.value })}
          >
            <option value="">All tags</option>
            {(tags.includes(tag) || !tag ? tags : [...tags, tag]).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </SelectField>
        ) : null}
      </div>
      {stats.error ? <Banner>{stats.error}</Banner> : null}
      {!stats.data ? (
        stats.error ? null : (
          <Loading label="Loading analytics" />
        )
      ) : !stats.data.configured ? (
        <NotConnected />
      ) : (
        <Overview data={stats.data} days={days} idBySlug={idBySlug} filtered={Boolean(folderId || tag)} />
      )}
    </div>
  );
}

function Overview({
  data,
  days,
  idBySlug,
  filtered,
}: {
  data: Analytics;
  days: number;
  idBySlug: Map<string, Link>;
  filtered: boolean;
}) {
  const locked = data.upgrade !== undefined;
  const outcomes = data.outcomes;
  const rate = openRate(outcomes);
  const reported = outcomes ? reportedOf(outcomes) : 0;
  return (
    <>
      <div className="stats">
        <Stat
          label="Taps"
          value={formatNumber(data.total)}
          note={`Last ${days} days${filtered ? ', filtered' : ''}`}
        />
        <Stat label="Links tapped" value={formatNumber(data.perLink.length)} note="with at least one tap" />
        {locked ? (
          <div className="stat stat-muted">
            <div className="stat-label">App-open rate</div>
            <div className="stat-value">—</div>
            <div className="stat-note">Hero and Legend</div>
          </div>
        ) : (
          <>
            <Stat
              label="App-open rate"
              value={formatRate(rate)}
              note={rate === null ? 'no outcomes reported yet' : `of ${formatNumber(reported)} reported taps`}
            />
            <Stat
              label="Opened the app"
              value={formatNumber(outcomes?.opened ?? 0)}
              note={`${formatNumber(outcomes?.browser ?? 0)} stayed in the browser`}
            />
          </>
        )}
      </div>
      {locked ? (
        <>
          <UpgradeNotice feature="fullAnalytics" />
          <UpgradeNotice feature="analyticsExport" compact />
        </>
      ) : null}
      <TopLinks perLink={data.perLink} total={data.total} idBySlug={idBySlug} />
      {locked ? null : <FullSeries data={data} days={days} />}
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
        <EmptyState title="No taps in this period">
          <p>
            Share a link from <a href="#/links">your links</a>: taps appear here within a second or two.
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="an-table">
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col" className="num">
                  Taps
                </th>
                <th scope="col" className="num">
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {perLink.slice(0, 20).map((row) => {
                const link = idBySlug.get(row.slug);
                return (
                  <tr key={row.slug}>
                    <td className="slug">
                      {link ? (
                        <span className="top-link">
                          <a href={`#/links/${encodeURIComponent(link.id)}/analytics`}>/{row.slug}</a>
                          <span className="muted">{link.destination.replace(/^https?:\/\//, '')}</span>
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
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

function FullSeries({ data, days }: { data: Analytics; days: number }) {
  const byPlatform = new Map<string, { opened: number; browser: number; broken: number }>();
  for (const row of data.platformOutcomes ?? []) {
    const key = row.platform ?? '';
    const entry = byPlatform.get(key) ?? { opened: 0, browser: 0, broken: 0 };
    if (row.outcome === 'opened' || row.outcome === 'browser' || row.outcome === 'broken')
      entry[row.outcome] += row.clicks;
    byPlatform.set(key, entry);
  }
  const platformRows = [...byPlatform].sort((a, b) => reportedOf(b[1]) - reportedOf(a[1]));
  return (
    <>
      <Card title="How taps ended">
        <OutcomeSplit outcomes={data.outcomes ?? { opened: 0, browser: 0, broken: 0 }} />
        {platformRows.length > 0 ? (
          <div className="table-wrap">
            <table className="an-table" aria-label="App-open rate per platform">
              <thead>
                <tr>
                  <th scope="col">Platform</th>
                  <th scope="col" className="num">
                    App-open rate
                  </th>
                  <th scope="col" className="num">
                    Opened
                  </th>
                  <th scope="col" className="num">
                    Browser
                  </th>
                  <th scope="col" className="num">
                    Failed
                  </th>
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
          </div>
        ) : null}
        <p className="an-note">
          Numbers are sampled estimates: read them as trends. A rate shows “—” until a phone reports an
          outcome.
        </p>
      </Card>
      <div className="an-grid">
        <Card title="Taps per day">
          <ColumnChart
            label={`Taps per day, last ${days} days`}
            points={(data.timeseries ?? []).map((row) => ({ label: dayLabel(row.day), value: row.clicks }))}
          />
        </Card>
        <Card title="Time of day">
          <ColumnChart
            label="Taps by hour of the day (UTC)"
            points={(data.hourly ?? []).map((row) => ({ label: hourLabel(row.hour), value: row.clicks }))}
          />
        </Card>
        <Card title="Countries">
          <BarList
            label="Taps by country"
            rows={(data.countries ?? []).map((row) => ({
              name: countryName(row.country),
              value: row.clicks,
            }))}
          />
        </Card>
        <Card title="Devices">
          <BarList
            label="Taps by device"
            rows={(data.devices ?? []).map((row) => ({ name: deviceName(row.device), value: row.clicks }))}
          />
        </Card>
        <Card title="Platforms">
          <BarList
            label="Taps by platform"
            rows={(data.platforms ?? []).map((row) => ({
              name: platformName(row.platform),
              value: row.clicks,
            }))}
          />
        </Card>
        <Card title="Referrers">
          <BarList
            label="Taps by referrer"
            rows={(data.referrers ?? []).map((row) => ({
              name: row.referrer ?? 'Direct or unknown',
              value: row.clicks,
            }))}
          />
        </Card>
      </div>
    </>
  );
}
