import type { ReactNode } from 'react';
import type { Analytics, Link } from '../../api/types';
import { OutcomeSplit, Stat } from '../../components/charts';
import { UpgradeNotice } from '../../components/gate';
import {
  Badge,
  Banner,
  Card,
  CopyButton,
  EmptyState,
  formatDateTime,
  formatNumber,
  Loading,
  PageHeader,
} from '../../components/ui';
import { hashQuery } from '../../router';
import { useApi } from '../../use-api';
import { shortDisplay } from '../links/common';
import { AbTestPanel } from './ab-test-panel';
import { EscapeHeatmap } from './EscapeHeatmap';
import {
  AnalyticsTable,
  BreakdownCards,
  DailyClicksChart,
  LockedStat,
  NO_OUTCOMES,
  OutcomeStats,
  SourceStat,
  StatsView,
} from './sections';
import {
  countryName,
  deviceName,
  OPEN_RATE_MEANS,
  outcomeLabel,
  outcomeTone,
  PeriodPicker,
  periodOf,
  platformName,
  reportedOf,
  SampledNote,
  setQuery,
} from './shared';
import './analytics.css';

interface Click {
  id: string;
  at: string;
  outcome: string;
  sourceApp: string | null;
  country: string | null;
  city: string | null;
  device: string | null;
  source: 'link' | 'qr';
}
interface Clicks {
  configured: boolean;
  clicks: Click[];
  upgrade?: string;
}

const RECENT = 50;

export function LinkAnalyticsPage({ params, path }: { params: Record<string, string>; path: string }) {
  const id = params.id ?? '';
  const days = periodOf(hashQuery(path));
  const link = useApi<Link>(`/links/${encodeURIComponent(id)}`);
  const stats = useApi<Analytics>(`/analytics?linkId=${encodeURIComponent(id)}&days=${days}`);
  const full = stats.data !== undefined && stats.data.upgrade === undefined;
  const live = full && stats.data?.configured === true;
  const clicks = useApi<Clicks>(live ? `/links/${encodeURIComponent(id)}/clicks?limit=${RECENT}` : null);

  if (link.error) {
    return (
      <div className="an-page">
        <PageHeader title="Link analytics" />
        <Banner>{link.error}</Banner>
        <a href="#/links">Back to your links</a>
      </div>
    );
  }
  if (!link.data) return <Loading label="Loading the link" />;
  const l = link.data;

  return (
    <div className="an-page">
      <p className="crumbs">
        <a href="#/links">Links</a> <span aria-hidden="true">/</span> <span className="mono">{l.slug}</span>
      </p>
      <PageHeader
        title="Link analytics"
        subtitle={
          <span className="link-summary">
            <span className="short">
              <a href={l.shortUrl} target="_blank" rel="noreferrer">
                {shortDisplay(l.shortUrl)}
              </a>
              <CopyButton text={l.shortUrl} label="Copy" />
            </span>
            <span className="dest">
              <span aria-hidden="true">→ </span>
              <span className="sr-only">Destination: </span>
              {l.destination}
            </span>
          </span>
        }
        actions={
          <>
            <PeriodPicker days={days} onChange={(value) => setQuery(path, { days: String(value) })} />
            <a className="btn btn-secondary" href={`#/links/${encodeURIComponent(l.id)}`}>
              Edit link
            </a>
          </>
        }
      />
      <StatsView stats={stats}>
        {(data) => (
          <LinkStats
            data={data}
            days={days}
            abTest={<AbTestPanel link={l} onPromoted={link.setData} />}
            clicks={clicks.data}
            heatmap={
              <EscapeHeatmap
                search={`linkId=${encodeURIComponent(id)}&days=${days}`}
                platform={hashQuery(path).get('platform') ?? ''}
                onPlatform={(platform) => setQuery(path, { platform })}
              />
            }
          />
        )}
      </StatsView>
      {clicks.error ? <Banner>{clicks.error}</Banner> : null}
    </div>
  );
}

function LinkStats({
  data,
  days,
  abTest,
  clicks,
  heatmap,
}: {
  data: Analytics;
  days: number;
  /** The A/B test's readout and promote (a link that runs or concluded a test). */
  abTest: ReactNode;
  clicks: Clicks | undefined;
  heatmap: ReactNode;
}) {
  const locked = data.upgrade !== undefined;
  const outcomes = data.outcomes;
  return (
    <>
      <div className="stats">
        <Stat label="Clicks" value={formatNumber(data.total)} note={`Last ${days} days`} />
        <SourceStat sources={data.sources} />
        {locked ? (
          <>
            <LockedStat label="App-open rate" />
            <LockedStat label="Opened the app" />
          </>
        ) : (
          <OutcomeStats outcomes={outcomes} />
        )}
      </div>
      <SampledNote sampled={data.sampled} />

      {locked ? (
        <UpgradeNotice feature="fullAnalytics" />
      ) : (
        <>
          <Card title="How taps ended">
            <OutcomeSplit outcomes={outcomes ?? NO_OUTCOMES} />
            {outcomes && reportedOf(outcomes) > 0 ? (
              <p className="an-note">
                Outcomes are what escape pages reported back. App-open rate: {OPEN_RATE_MEANS}.
              </p>
            ) : null}
          </Card>
          {heatmap}
          <Card title="Clicks over time">
            <DailyClicksChart data={data} days={days} />
          </Card>
          <div className="an-grid">
            <BreakdownCards data={data} />
          </div>
          {abTest}
          <RecentClicks clicks={clicks} />
        </>
      )}
    </>
  );
}

function RecentClicks({ clicks }: { clicks: Clicks | undefined }) {
  return (
    <Card title="Recent clicks" actions={<span className="card-note">Newest {RECENT}, last 90 days</span>}>
      {!clicks ? (
        <Loading label="Loading clicks" />
      ) : clicks.upgrade ? (
        <UpgradeNotice feature="fullAnalytics" compact />
      ) : clicks.clicks.length === 0 ? (
        <EmptyState title="No clicks yet">
          <p>Share the short link: every human click shows up here within a second or two.</p>
        </EmptyState>
      ) : (
        <AnalyticsTable columns={['When', 'Via', 'Outcome', 'From app', 'Where', 'Device']}>
          {clicks.clicks.map((click) => (
            <tr key={click.id}>
              <td>{formatDateTime(click.at)}</td>
              <td>{click.source === 'qr' ? 'QR code' : 'Link'}</td>
              <td>
                <Badge tone={outcomeTone(click.outcome)}>{outcomeLabel(click.outcome)}</Badge>
              </td>
              <td>{click.sourceApp ? platformName(click.sourceApp) : <span className="muted">—</span>}</td>
              <td>
                {click.country
                  ? [click.city, countryName(click.country)].filter(Boolean).join(', ')
                  : 'Unknown'}
              </td>
              <td>{deviceName(click.device)}</td>
            </tr>
          ))}
        </AnalyticsTable>
      )}
    </Card>
  );
}
