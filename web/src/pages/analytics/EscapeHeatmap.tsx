import type { EscapeCell, EscapeCells } from '../../api/types';
import {
  Banner,
  Card,
  EmptyState,
  formatNumber,
  formatRate,
  Loading,
  SelectField,
} from '../../components/ui';
import { useApi } from '../../use-api';
import { AnalyticsTable, numeric } from './sections';
import { OPEN_RATE_MEANS, platformName, RateCell } from './shared';
import './escape-heatmap.css';

/**
 * Where the escape works: the app-open rate of every in-app browser on iOS and Android, as a heat-map with
 * the numbers written in each cell, then the same per strategy so a creator sees which hand-off the bandit
 * is learning to prefer. GET /api/analytics/escape. The rate is the dashboard's one app-open rate
 * (OPEN_RATE_MEANS: opened ÷ taps that reported), computed here from the cells' outcomes, so it agrees
 * with the page's headline rate; each cell also says how many taps it had and how many reported.
 */

const OSES = [
  { key: 'ios', label: 'iOS' },
  { key: 'android', label: 'Android' },
] as const;

const STRATEGIES: Record<string, string> = {
  intent: 'Android intent',
  scheme: 'App link',
  universal: 'Universal link',
  'x-safari': 'Bounce to Safari',
  instructions: 'Instructions only',
  none: 'Web link only',
};
export const strategyName = (key: string) => STRATEGIES[key] ?? key;
const inAppName = (key: string | null) => platformName(key, 'Browser (no in-app)');

/**
 * A light tint from red (0 %) through amber to green (100 %): dark text keeps well over 4.5:1 on every
 * tint, and the value is always written too, so the colour is never the only carrier.
 */
export function heatColour(rate: number): string {
  const clamped = Math.min(1, Math.max(0, rate));
  return `hsl(${Math.round(clamped * 130)} 72% 86%)`;
}

interface Sum {
  taps: number;
  opened: number;
  reported: number;
}
const rateOf = (sum: Sum | undefined) => (sum && sum.reported > 0 ? sum.opened / sum.reported : null);
const reportedOfCell = (cell: EscapeCell) => cell.opened + cell.browser + cell.broken;

/** Taps and opens per in-app browser and OS, summed over strategies (and platforms); most taps first. */
export function heatRows(cells: readonly EscapeCell[]): { inApp: string | null; byOs: Map<string, Sum> }[] {
  const rows = new Map<string, { inApp: string | null; byOs: Map<string, Sum>; taps: number }>();
  for (const cell of cells) {
    const key = cell.inApp ?? '';
    const row = rows.get(key) ?? { inApp: cell.inApp, byOs: new Map(), taps: 0 };
    const sum = row.byOs.get(cell.os) ?? { taps: 0, opened: 0, reported: 0 };
    sum.taps += cell.taps;
    sum.opened += cell.opened;
    sum.reported += reportedOfCell(cell);
    row.byOs.set(cell.os, sum);
    row.taps += cell.taps;
    rows.set(key, row);
  }
  return [...rows.values()].sort(
    (a, b) => b.taps - a.taps || inAppName(a.inApp).localeCompare(inAppName(b.inApp)),
  );
}

export function EscapeHeatmap({
  search,
  platform,
  onPlatform,
}: {
  /** The page's query for /analytics/escape: days and linkId, folderId or tag. */
  search: string;
  platform: string;
  onPlatform: (platform: string) => void;
}) {
  const cells = useApi<EscapeCells>(`/analytics/escape?${search}`);
  const all = cells.data?.cells ?? [];
  const platforms = [...new Set(all.map((cell) => cell.platform))].sort((a, b) =>
    platformName(a).localeCompare(platformName(b)),
  );
  const shown = platform ? all.filter((cell) => cell.platform === platform) : all;
  const filter =
    platforms.length > 0 ? (
      <SelectField label="Platform" value={platform} onChange={(event) => onPlatform(event.target.value)}>
        <option value="">All platforms</option>
        {platforms.map((key) => (
          <option key={key} value={key}>
            {platformName(key)}
          </option>
        ))}
        {platform && !platforms.includes(platform) ? (
          <option value={platform}>{platformName(platform)}</option>
        ) : null}
      </SelectField>
    ) : null;
  return (
    <Card title="App-open rate by in-app browser" className="heat-card" actions={filter}>
      {cells.error ? <Banner>{cells.error}</Banner> : null}
      {!cells.data ? (
        cells.error ? null : (
          <Loading label="Loading in-app browsers" />
        )
      ) : shown.length === 0 ? (
        <EmptyState title="No escape pages served yet">
          <p>
            When someone taps your link inside Instagram, TikTok or another app, the result shows up here.
          </p>
        </EmptyState>
      ) : (
        <>
          <HeatTable cells={shown} />
          <HeatLegend />
          <StrategyTable cells={shown} />
          <p className="an-note">
            A tap is an escape page served to a phone. App-open rate: {OPEN_RATE_MEANS}, as everywhere on this
            page. Where an app allows several ways out, linkhop tries them and sends most taps to the one that
            works best.
          </p>
        </>
      )}
    </Card>
  );
}

function HeatTable({ cells }: { cells: readonly EscapeCell[] }) {
  return (
    <div className="table-wrap">
      <table className="heat-table" aria-label="App-open rate by in-app browser and OS">
        <thead>
          <tr>
            <th scope="col">In-app browser</th>
            {OSES.map((os) => (
              <th key={os.key} scope="col">
                {os.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {heatRows(cells).map((row) => (
            <tr key={row.inApp ?? ''}>
              <th scope="row">{inAppName(row.inApp)}</th>
              {OSES.map((os) => {
                const sum = row.byOs.get(os.key);
                const rate = rateOf(sum);
                const taps = sum?.taps ?? 0;
                const tapsText = `${formatNumber(taps)} ${taps === 1 ? 'tap' : 'taps'}`;
                return rate === null ? (
                  <td key={os.key} className="heat-empty">
                    <span className="heat-rate">—</span>
                    <span className="heat-taps">{taps === 0 ? 'no taps' : `${tapsText}, none reported`}</span>
                  </td>
                ) : (
                  <td key={os.key} className="heat-cell" style={{ background: heatColour(rate) }}>
                    <span className="heat-rate">{formatRate(rate)}</span>
                    <span className="heat-taps">
                      {tapsText} · {formatNumber(sum?.reported ?? 0)} reported
                    </span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function HeatLegend() {
  return (
    <div className="heat-legend">
      <span>0%</span>
      <span className="heat-scale" aria-hidden="true" />
      <span>100% opened the app</span>
    </div>
  );
}

/** Each cell and strategy on its own row: what the bandit sees. */
function StrategyTable({ cells }: { cells: readonly EscapeCell[] }) {
  return (
    <AnalyticsTable
      label="App-open rate per in-app browser, OS, platform and strategy"
      columns={[
        'In-app browser',
        'OS',
        'Platform',
        'Strategy',
        numeric('Taps'),
        numeric('Opened'),
        numeric('Browser'),
        numeric('Failed'),
        numeric('App-open rate'),
      ]}
    >
      {cells.slice(0, 50).map((cell) => (
        <tr key={`${cell.inApp}|${cell.os}|${cell.platform}|${cell.strategy}`}>
          <td>{inAppName(cell.inApp)}</td>
          <td>{cell.os === 'ios' ? 'iOS' : 'Android'}</td>
          <td>{platformName(cell.platform)}</td>
          <td>{strategyName(cell.strategy)}</td>
          <td className="num">{formatNumber(cell.taps)}</td>
          <td className="num">{formatNumber(cell.opened)}</td>
          <td className="num">{formatNumber(cell.browser)}</td>
          <td className="num">{formatNumber(cell.broken)}</td>
          <td className="num">
            <RateCell rate={reportedOfCell(cell) > 0 ? cell.opened / reportedOfCell(cell) : null} />
          </td>
        </tr>
      ))}
    </AnalyticsTable>
  );
}
