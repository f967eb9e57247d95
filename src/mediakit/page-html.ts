import { avatarHtml, brandFooter, renderShell } from '../bio/page-shell.js';
import { escapeAttr, escapeHtml, safeHref } from '../core/pages/escape-html.js';
import type { PublicKit } from './schema.js';

/**
 * The public media kit /@handle/media-kit: the chosen numbers as tiles, bars and a sparkline, all in
 * HTML and inline SVG, with no script and no external asset.
 */

export interface MediaKitHtmlInput {
  kit: PublicKit;
  nonce: string;
  /** Absolute address of this page. */
  url: string;
  /** Absolute address of the card image, when the kit shows its app-open rate. */
  cardUrl: string | null;
  branded: boolean;
}

const CSS =
  '.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.8rem}' +
  '.tile{background:rgba(127,127,127,.09);border-radius:1rem;padding:1rem 1.1rem}' +
  '.tile b{display:block;font-size:2rem;line-height:1.1;letter-spacing:-.02em}' +
  '.tile span{font-size:.82rem;opacity:.7}' +
  'section{margin-top:1.4rem}h2{font-size:.8rem;letter-spacing:.08em;text-transform:uppercase;opacity:.65;margin:0 0 .6rem}' +
  '.row{display:flex;justify-content:space-between;gap:1rem;font-size:.95rem;margin:.35rem 0 .2rem}' +
  '.row a{color:inherit;overflow-wrap:anywhere}' +
  '.bar{display:block;width:100%;height:.5rem}.bar .t{fill:rgba(127,127,127,.18)}.bar .f{fill:var(--ac)}' +
  '.spark{width:100%;height:80px;display:block}.spark polyline{stroke:var(--ac)}.note{margin-top:1.5rem;font-size:.8rem;opacity:.6;text-align:center}' +
  '.empty{text-align:center;opacity:.7;padding:1.5rem 0}.card{width:100%;height:auto;border-radius:1rem;display:block;margin-top:1.4rem}' +
  '@media(min-width:40rem){main{padding-top:4rem}}';

const n = (value: number) => escapeHtml(value.toLocaleString('en-US'));

function bars(rows: { label: string; clicks: number; url?: string }[]): string {
  const max = Math.max(1, ...rows.map((r) => r.clicks));
  return rows
    .map((row) => {
      const label = row.url
        ? `<a href="${escapeAttr(safeHref(row.url))}">${escapeHtml(row.label)}</a>`
        : escapeHtml(row.label);
      const width = Math.max(2, Math.round((row.clicks / max) * 100));
      return `<div class="row"><span>${label}</span><span>${n(row.clicks)}</span></div><svg class="bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true"><rect class="t" width="100" height="6" rx="3"/><rect class="f" width="${width}" height="6" rx="3"/></svg>`;
    })
    .join('');
}

/** A polyline over the daily clicks, scaled into a 300x80 box. */
export function sparkline(points: { day: string; clicks: number }[]): string {
  const max = Math.max(1, ...points.map((p) => p.clicks));
  const step = points.length > 1 ? 300 / (points.length - 1) : 0;
  const coords = points
    .map((p, i) => `${(i * step).toFixed(1)},${(76 - (p.clicks / max) * 72).toFixed(1)}`)
    .join(' ');
  return (
    '<svg class="spark" viewBox="0 0 300 80" preserveAspectRatio="none" role="img" aria-label="Daily clicks">' +
    `<polyline points="${coords}" fill="none" stroke-width="2.5" stroke-linejoin="round" vector-effect="non-scaling-stroke"/></svg>`
  );
}

export function renderMediaKitPage(input: MediaKitHtmlInput): string {
  const { kit } = input;
  const tiles: string[] = [];
  if (kit.taps !== undefined) tiles.push(`<div class="tile"><b>${n(kit.taps)}</b><span>clicks</span></div>`);
  if (kit.appOpen?.rate != null) {
    tiles.push(
      `<div class="tile"><b>${Math.round(kit.appOpen.rate * 100)}%</b><span>app-open rate</span></div>`,
    );
    tiles.push(`<div class="tile"><b>${n(kit.appOpen.opened)}</b><span>app opens</span></div>`);
  }
  const sections = [
    tiles.length > 0 ? `<div class="grid">${tiles.join('')}</div>` : '',
    kit.platforms
      ? `<section><h2>Platforms</h2>${bars(kit.platforms.map((p) => ({ label: p.platform, clicks: p.clicks })))}</section>`
      : '',
    kit.topLinks ? `<section><h2>Top links</h2>${bars(kit.topLinks)}</section>` : '',
    kit.trend ? `<section><h2>Daily clicks</h2>${sparkline(kit.trend)}</section>` : '',
    input.cardUrl && kit.appOpen
      ? `<img class="card" src="${escapeAttr(safeHref(input.cardUrl))}" alt="App-open rate card" width="1200" height="630">`
      : '',
  ].join('');
  const body =
    `<header class="hd">${avatarHtml(kit.avatarUrl, kit.title)}` +
    `<h1>${escapeHtml(kit.title)}</h1><div class="at">@${escapeHtml(kit.handle)} · media kit</div>` +
    (kit.bio ? `<p class="bio">${escapeHtml(kit.bio)}</p>` : '') +
    '</header>' +
    (kit.empty
      ? '<p class="empty">Numbers will appear here once there is something to report.</p>'
      : sections) +
    `<p class="note">Last ${escapeHtml(String(kit.window))} days. Sampled estimates, meant as trends.</p>` +
    brandFooter(input.branded);
  return renderShell({
    nonce: input.nonce,
    url: input.url,
    title: `${kit.title} (@${kit.handle}) · media kit`,
    description:
      kit.appOpen?.rate != null
        ? `${Math.round(kit.appOpen.rate * 100)}% of taps on @${kit.handle}'s links open the app.`
        : `The media kit of @${kit.handle}.`,
    image: input.cardUrl && kit.appOpen ? input.cardUrl : kit.avatarUrl,
    largeImage: Boolean(input.cardUrl && kit.appOpen),
    theme: kit.theme,
    css: CSS,
    body,
  });
}
