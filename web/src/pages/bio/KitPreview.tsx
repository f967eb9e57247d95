import type { PublicKit } from '../../api/types';
import { formatDate, formatNumber, formatRate } from '../../components/ui';
import { withoutScheme } from './model';
import { BrandFooter, PhoneFrame, PreviewHeader } from './PhonePreview';

/** The public payload drawn like /@handle/media-kit: only the sections the server sent. */
export function KitPreview({ kit, branded, origin }: { kit: PublicKit; branded: boolean; origin: string }) {
  return (
    <PhoneFrame
      theme={kit.theme}
      label="Preview of your public media kit"
      address={`${withoutScheme(origin)}/@${kit.handle}/media-kit`}
    >
      <div className="pv-main" data-testid="kit-preview">
        <PreviewHeader
          title={kit.title}
          handle={kit.handle}
          bio={kit.bio}
          avatarUrl={kit.avatarUrl}
          suffix="media kit"
        />
        {kit.empty ? <NothingYet configured={kit.configured} /> : <KitSections kit={kit} />}
        <p className="pv-note">
          Last {kit.window} days. Sampled estimates, meant as trends. Updated {formatDate(kit.updatedAt)}.
        </p>
        <BrandFooter branded={branded} />
      </div>
    </PhoneFrame>
  );
}

/** No zeros on show: an empty kit says why it is empty. */
function NothingYet({ configured }: { configured: boolean }) {
  return (
    <div className="pv-kit-empty">
      <p className="pv-kit-empty-title">Nothing to show yet</p>
      <p>
        {configured
          ? 'Switch sections on, and numbers appear as soon as there are taps to report.'
          : 'Analytics is not connected on this server, so there are no numbers to share.'}
      </p>
    </div>
  );
}

function KitSections({ kit }: { kit: PublicKit }) {
  const tiles: { value: string; label: string }[] = [];
  if (kit.taps !== undefined) tiles.push({ value: formatNumber(kit.taps), label: 'clicks' });
  if (kit.appOpen?.rate != null) {
    tiles.push({ value: formatRate(kit.appOpen.rate), label: 'app-open rate' });
    tiles.push({ value: formatNumber(kit.appOpen.opened), label: 'app opens' });
  }
  return (
    <>
      {tiles.length > 0 ? (
        <div className="pv-grid">
          {tiles.map((tile) => (
            <div className="pv-tile" key={tile.label}>
              <b>{tile.value}</b>
              <span>{tile.label}</span>
            </div>
          ))}
        </div>
      ) : null}
      {kit.platforms ? (
        <PreviewBars
          title="Platforms"
          rows={kit.platforms.map((p) => ({ label: p.platform, clicks: p.clicks }))}
        />
      ) : null}
      {kit.topLinks ? <PreviewBars title="Top links" rows={kit.topLinks} /> : null}
      {kit.trend ? (
        <section className="pv-sec">
          <p className="pv-h2 pv-left">Daily clicks</p>
          <Sparkline points={kit.trend} />
        </section>
      ) : null}
    </>
  );
}

function PreviewBars({ title, rows }: { title: string; rows: { label: string; clicks: number }[] }) {
  const max = Math.max(1, ...rows.map((r) => r.clicks));
  return (
    <section className="pv-sec">
      <p className="pv-h2 pv-left">{title}</p>
      {rows.map((row) => (
        <div key={row.label} className="pv-barrow">
          <div className="pv-row">
            <span>{row.label}</span>
            <span>{formatNumber(row.clicks)}</span>
          </div>
          <svg className="pv-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
            <rect className="t" width="100" height="6" rx="3" />
            <rect className="f" width={Math.max(2, Math.round((row.clicks / max) * 100))} height="6" rx="3" />
          </svg>
        </div>
      ))}
    </section>
  );
}

function Sparkline({ points }: { points: { day: string; clicks: number }[] }) {
  const max = Math.max(1, ...points.map((p) => p.clicks));
  const step = points.length > 1 ? 300 / (points.length - 1) : 0;
  const coords = points
    .map((p, i) => `${(i * step).toFixed(1)},${(76 - (p.clicks / max) * 72).toFixed(1)}`)
    .join(' ');
  return (
    <svg
      className="pv-spark"
      viewBox="0 0 300 80"
      preserveAspectRatio="none"
      role="img"
      aria-label="Daily clicks"
    >
      <polyline
        points={coords}
        fill="none"
        strokeWidth="2.5"
        strokeLinejoin="round"
        vectorEffect="non-scaling-stroke"
      />
    </svg>
  );
}
