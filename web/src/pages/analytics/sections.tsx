import type { ReactNode } from 'react';
import type { Analytics, Outcomes, Sources } from '../../api/types';
import { BarList, ColumnChart, Stat } from '../../components/charts';
import { Banner, Card, formatNumber, formatRate, Loading } from '../../components/ui';
import type { Loaded } from '../../use-api';
import {
  countryName,
  dayLabel,
  deviceName,
  NotConnected,
  OPEN_RATE_MEANS,
  openRate,
  platformName,
  reportedOf,
} from './shared';

/** The parts both analytics pages show the same way: the stats' states, the outcome stats, the charts. */

/** The stats request as the page shows it: its error, a spinner, the not-connected banner, or `children`. */
export function StatsView({
  stats,
  children,
}: {
  stats: Loaded<Analytics>;
  children: (data: Analytics) => ReactNode;
}) {
  return (
    <>
      {stats.error ? <Banner>{stats.error}</Banner> : null}
      {!stats.data ? (
        stats.error ? null : (
          <Loading label="Loading analytics" />
        )
      ) : !stats.data.configured ? (
        <NotConnected />
      ) : (
        children(stats.data)
      )}
    </>
  );
}

/** A stat the plan does not include: its label, a dash, and the plans that have it. */
export function LockedStat({ label }: { label: string }) {
  return (
    <div className="stat stat-muted">
      <div className="stat-label">{label}</div>
      <div className="stat-value">—</div>
      <div className="stat-note">Hero and Legend</div>
    </div>
  );
}

/** QR scans apart from the rest: what a printed code brought in. On every plan, as the total is. */
export function SourceStat({ sources }: { sources: Sources }) {
  return (
    <Stat
      label="QR scans"
      value={formatNumber(sources.qr)}
      note={`${formatNumber(sources.link)} through the link itself`}
    />
  );
}

/** The app-open rate (a dash until a tap reports) and how many taps opened the app. */
export function OutcomeStats({ outcomes }: { outcomes: Outcomes | undefined }) {
  const rate = openRate(outcomes);
  const reported = outcomes ? reportedOf(outcomes) : 0;
  return (
    <>
      <Stat
        label="App-open rate"
        value={formatRate(rate)}
        note={
          rate === null
            ? 'no tap has reported an outcome yet'
            : `${OPEN_RATE_MEANS} (${formatNumber(reported)} reported)`
        }
      />
      <Stat
        label="Opened the app"
        value={formatNumber(outcomes?.opened ?? 0)}
        note={`${formatNumber(outcomes?.browser ?? 0)} stayed in the browser`}
      />
    </>
  );
}

export const NO_OUTCOMES: Outcomes = { opened: 0, browser: 0, broken: 0 };

export function DailyClicksChart({ data, days }: { data: Analytics; days: number }) {
  return (
    <ColumnChart
      label={`Clicks per day, last ${days} days`}
      points={(data.timeseries ?? []).map((row) => ({ label: dayLabel(row.day), value: row.clicks }))}
    />
  );
}

/** Where the clicks came from: one card each for countries, devices, platforms and referrers. */
export function BreakdownCards({ data }: { data: Analytics }) {
  return (
    <>
      <Card title="Countries">
        <BarList
          label="Clicks by country"
          rows={(data.countries ?? []).map((row) => ({ name: countryName(row.country), value: row.clicks }))}
        />
      </Card>
      <Card title="Devices">
        <BarList
          label="Clicks by device"
          rows={(data.devices ?? []).map((row) => ({ name: deviceName(row.device), value: row.clicks }))}
        />
      </Card>
      <Card title="Platforms">
        <BarList
          label="Clicks by platform"
          rows={(data.platforms ?? []).map((row) => ({
            name: platformName(row.platform),
            value: row.clicks,
          }))}
        />
      </Card>
      <Card title="Referrers">
        <BarList
          label="Clicks by referrer"
          rows={(data.referrers ?? []).map((row) => ({
            name: row.referrer ?? 'Direct or unknown',
            value: row.clicks,
          }))}
        />
      </Card>
    </>
  );
}

/** A column of a dense table; `numeric` columns align right. */
export interface Column {
  label: string;
  numeric?: boolean;
}
export const numeric = (label: string): Column => ({ label, numeric: true });

/** A dense analytics table, scrolling inside its card when it is wider than the screen. */
export function AnalyticsTable({
  label,
  columns,
  children,
}: {
  label?: string;
  columns: (string | Column)[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className="an-table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => {
              const { label: text, numeric: isNumeric } =
                typeof column === 'string' ? { label: column } : column;
              return (
                <th key={text} scope="col" className={isNumeric ? 'num' : undefined}>
                  {text}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
