import { formatNumber, formatRate } from './ui';

/** Small hand-drawn SVG and CSS charts: a few hundred bytes each, no chart library in the bundle. */

export function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {note ? <div className="stat-note">{note}</div> : null}
    </div>
  );
}

/** Horizontal bars, largest first: countries, devices, platforms, referrers. */
export function BarList({ rows, label }: { rows: { name: string; value: number }[]; label: string }) {
  if (rows.length === 0) return <p className="muted">No data yet.</p>;
  const max = Math.max(...rows.map((row) => row.value), 1);
  return (
    <ul className="barlist" aria-label={label}>
      {rows.map((row) => (
        <li key={row.name}>
          <span className="barlist-name">{row.name}</span>
          <span className="barlist-track" aria-hidden="true">
            <span className="barlist-fill" style={{ width: `${(row.value / max) * 100}%` }} />
          </span>
          <span className="barlist-value">{formatNumber(row.value)}</span>
        </li>
      ))}
    </ul>
  );
}

/** Clicks per day (or hour) as columns, with an accessible table behind it. */
export function ColumnChart({
  points,
  label,
}: {
  points: { label: string; value: number }[];
  label: string;
}) {
  if (points.length === 0) return <p className="muted">No clicks in this window yet.</p>;
  const max = Math.max(...points.map((point) => point.value), 1);
  const width = 600;
  const height = 160;
  const gap = 2;
  const bar = Math.max(1, width / points.length - gap);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label} preserveAspectRatio="none">
        {points.map((point, index) => {
          const h = (point.value / max) * (height - 4);
          return (
            <rect
              key={point.label}
              x={index * (bar + gap)}
              y={height - h}
              width={bar}
              height={Math.max(h, point.value > 0 ? 1 : 0)}
              rx={Math.min(3, bar / 2)}
              className="chart-bar"
            >
              <title>{`${point.label}: ${formatNumber(point.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="chart-axis">
        <span>{points[0]?.label}</span>
        <span>{points[points.length - 1]?.label}</span>
      </figcaption>
    </figure>
  );
}

const OUTCOME_NAMES = {
  opened: 'Opened the app',
  browser: 'Stayed in browser',
  broken: 'Hand-off failed',
} as const;

/** The opened / browser / broken split as one stacked bar with a legend. */
export function OutcomeSplit({
  outcomes,
}: {
  outcomes: { opened: number; browser: number; broken: number };
}) {
  const total = outcomes.opened + outcomes.browser + outcomes.broken;
  if (total === 0)
    return (
      <p className="muted">No outcomes reported yet: they appear once visitors tap through an escape page.</p>
    );
  const keys = ['opened', 'browser', 'broken'] as const;
  return (
    <div className="outcomes">
      <div className="outcome-bar" aria-hidden="true">
        {keys.map((key) =>
          outcomes[key] > 0 ? (
            <span
              key={key}
              className={`outcome-${key}`}
              style={{ width: `${(outcomes[key] / total) * 100}%` }}
            />
          ) : null,
        )}
      </div>
      <ul className="outcome-legend">
        {keys.map((key) => (
          <li key={key}>
            <span className={`dot outcome-${key}`} aria-hidden="true" />
            {OUTCOME_NAMES[key]}: <strong>{formatNumber(outcomes[key])}</strong> (
            {formatRate(outcomes[key] / total)})
          </li>
        ))}
      </ul>
    </div>
  );
}
