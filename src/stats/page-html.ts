import { renderShell } from '../bio/page-shell.js';
import { formatCount, regionName } from '../core/intl.js';
import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';
import type { PublicStats } from './schema.js';

/**
 * The public stats page (`GET /{slug}+`): the same frame, CSP (no script, styles by nonce) and escaping as
 * the other public creator pages. The chart is inline SVG drawn with attributes, so no style attribute is
 * needed. Aggregates only: nothing here describes a single visit.
 */

const CSS =
  'h2{font-size:1rem;margin:2rem 0 .5rem}' +
  '.kpi{display:flex;gap:1rem;justify-content:center;margin:1.5rem 0}' +
  '.kpi div{flex:1;background:#fff;border-radius:12px;padding:1rem;text-align:center;box-shadow:0 1px 3px #0002}' +
  '.kpi b{display:block;font-size:1.8rem;line-height:1.2}.kpi span{opacity:.7;font-size:.85rem}' +
  'figure{margin:0}svg{width:100%;height:auto;display:block}rect{fill:var(--ac)}' +
  'figcaption{font-size:.8rem;opacity:.7;display:flex;justify-content:space-between}' +
  'table{width:100%;border-collapse:collapse}td,th{padding:.35rem 0;border-bottom:1px solid #0001;text-align:left}' +
  'td.n{text-align:right;font-variant-numeric:tabular-nums}.muted{opacity:.65}';

const DEVICE_NAMES: Record<string, string> = {
  ios: 'iPhone and iPad',
  android: 'Android',
  desktop: 'Computer',
};

function countryName(code: string | null): string {
  if (code === null) return 'Unknown';
  try {
    return regionName(code) ?? code;
  } catch {
    return code;
  }
}

function chart(series: PublicStats['series']): string {
  const width = 300;
  const height = 80;
  const step = width / Math.max(series.length, 1);
  const top = Math.max(1, ...series.map((day) => day.clicks));
  const bars = series
    .map((day, i) => {
      const h = Math.round((day.clicks / top) * (height - 2) * 10) / 10;
      const x = Math.round((i * step + step * 0.15) * 10) / 10;
      return `<rect x="${x}" y="${height - h}" width="${Math.round(step * 0.7 * 10) / 10}" height="${h}"><title>${escapeHtml(`${day.date}: ${formatCount(day.clicks)}`)}</title></rect>`;
    })
    .join('');
  const label = `Clicks per day over the last ${series.length} days, at most ${formatCount(top)} a day`;
  const first = series[0]?.date ?? '';
  const last = series.at(-1)?.date ?? '';
  return (
    `<figure><svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeAttr(label)}">${bars}</svg>` +
    `<figcaption><span>${escapeHtml(first)}</span><span>${escapeHtml(last)}</span></figcaption></figure>`
  );
}

function table(caption: string, rows: { name: string; clicks: number }[]): string {
  if (rows.length === 0) return `<h2>${escapeHtml(caption)}</h2><p class="muted">No clicks yet.</p>`;
  const body = rows
    .map((row) => `<tr><td>${escapeHtml(row.name)}</td><td class="n">${formatCount(row.clicks)}</td></tr>`)
    .join('');
  return `<h2>${escapeHtml(caption)}</h2><table><tbody>${body}</tbody></table>`;
}

export function renderPublicStatsPage(input: {
  stats: PublicStats;
  shortUrl: string;
  nonce: string;
}): string {
  const { stats, shortUrl } = input;
  const display = shortUrl.replace(/^https?:\/\//, '');
  const rate = stats.appOpenRate === null ? '—' : `${Math.round(stats.appOpenRate * 100)} %`;
  const body =
    `<div class="hd"><h1>${escapeHtml(display)}</h1><div class="at">Public stats, last 30 days</div></div>` +
    '<section class="kpi" aria-label="Totals">' +
    `<div><b>${formatCount(stats.clicks)}</b><span>clicks</span></div>` +
    `<div><b>${escapeHtml(rate)}</b><span>app-open rate</span></div></section>` +
    chart(stats.series) +
    table(
      'Countries',
      stats.countries.map((row) => ({ name: countryName(row.country), clicks: row.clicks })),
    ) +
    table(
      'Devices',
      stats.devices.map((row) => ({ name: DEVICE_NAMES[row.device] ?? 'Other', clicks: row.clicks })),
    );
  return renderShell({
    nonce: input.nonce,
    url: `${shortUrl}+`,
    title: `${display}: public stats`,
    description: `${formatCount(stats.clicks)} clicks in the last 30 days`,
    image: null,
    theme: null,
    css: CSS,
    body,
  });
}
