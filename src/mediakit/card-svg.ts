import { isCssColour, type Theme } from '../bio/schema.js';
import { escapeAttr, escapeHtml } from '../core/pages/escape-html.js';

/**
 * The 1200x630 app-open-rate card (the Open Graph image size). Pure: numbers and names in, SVG text out.
 * Every piece of text goes through escapeHtml (valid in XML: it only emits &amp; &lt; &gt; &quot; and
 * numeric references); colours are re-checked because they land in attributes.
 */

export interface CardInput {
  handle: string;
  title: string;
  theme: Theme | null;
  window: number;
  appOpen: { rate: number | null; opened: number; browser: number; broken: number };
}

const W = 1200;
const H = 630;
const FONT = 'system-ui,-apple-system,&quot;Segoe UI&quot;,Roboto,Helvetica,Arial,sans-serif';

const colour = (value: string | undefined, fallback: string) =>
  escapeAttr(value && isCssColour(value) ? value.trim() : fallback);

/** At most `max` characters (by code point), with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

export function renderCardSvg(input: CardInput): string {
  const accent = colour(input.theme?.accent, '#7c6cff');
  const { opened, browser, broken } = input.appOpen;
  const total = Math.max(1, opened + browser + broken);
  const rate = input.appOpen.rate ?? opened / total;
  const pct = Math.round(rate * 100);

  // The ring: one circle for the track, one dashed circle for the opened share.
  const r = 150;
  const circumference = 2 * Math.PI * r;
  const arc = (circumference * Math.min(1, Math.max(0, rate))).toFixed(1);

  // The split bar under the headline: opened, stayed in browser, failed.
  const barX = 80;
  const barW = 640;
  const seg = (n: number) => Math.round((n / total) * barW);
  const wOpened = seg(opened);
  const wBrowser = seg(browser);
  const wBroken = Math.max(0, barW - wOpened - wBrowser);
  const legend = [
    ['#34d399', `Opened the app ${grouped(opened)}`],
    ['#fbbf24', `Stayed in browser ${grouped(browser)}`],
    ['#f87171', `Failed ${grouped(broken)}`],
  ] as const;
  let lx = barX;
  const legendSvg = legend
    .map(([fill, text]) => {
      const item =
        `<rect x="${lx}" y="522" width="14" height="14" rx="3" fill="${fill}"/>` +
        `<text x="${lx + 22}" y="534" font-size="20" fill="#d9d6f5">${escapeHtml(text)}</text>`;
      lx += 22 + text.length * 11 + 30;
      return item;
    })
    .join('');

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" ` +
    `aria-label="${escapeAttr(`@${input.handle}: ${pct}% of taps opened the app`)}" font-family="${FONT}">` +
    `<title>${escapeHtml(`@${input.handle} app-open rate: ${pct}%`)}</title>` +
    '<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">' +
    '<stop offset="0" stop-color="#151226"/><stop offset="1" stop-color="#241c4d"/></linearGradient>' +
    `<radialGradient id="glow" cx=".85" cy=".2" r=".7"><stop offset="0" stop-color="${accent}" stop-opacity=".45"/>` +
    `<stop offset="1" stop-color="${accent}" stop-opacity="0"/></radialGradient></defs>` +
    `<rect width="${W}" height="${H}" fill="url(#bg)"/><rect width="${W}" height="${H}" fill="url(#glow)"/>` +
    `<rect x="0" y="0" width="${W}" height="8" fill="${accent}"/>` +
    `<text x="80" y="104" font-size="34" font-weight="700" fill="#ffffff">${escapeHtml(clip(input.title, 38))}</text>` +
    `<text x="80" y="146" font-size="24" fill="#a9a3d9">@${escapeHtml(input.handle)}</text>` +
    '<text x="80" y="232" font-size="22" font-weight="700" letter-spacing="4" fill="#a9a3d9">APP-OPEN RATE</text>' +
    `<text x="72" y="392" font-size="168" font-weight="800" fill="#ffffff" letter-spacing="-4">${pct}%</text>` +
    `<text x="80" y="442" font-size="26" fill="#d9d6f5">of taps opened the app, not the in-app browser</text>` +
    // The split bar is clipped to one rounded shape so its three parts read as one bar.
    `<clipPath id="bar"><rect x="${barX}" y="476" width="${barW}" height="18" rx="9"/></clipPath>` +
    `<g clip-path="url(#bar)"><rect x="${barX}" y="476" width="${barW}" height="18" fill="#ffffff" fill-opacity=".12"/>` +
    `<rect x="${barX}" y="476" width="${wOpened}" height="18" fill="#34d399"/>` +
    `<rect x="${barX + wOpened}" y="476" width="${wBrowser}" height="18" fill="#fbbf24"/>` +
    `<rect x="${barX + wOpened + wBrowser}" y="476" width="${wBroken}" height="18" fill="#f87171"/></g>` +
    legendSvg +
    `<g transform="translate(960 300)"><circle r="${r}" fill="none" stroke="#ffffff" stroke-opacity=".12" stroke-width="34"/>` +
    `<circle r="${r}" fill="none" stroke="${accent}" stroke-width="34" stroke-linecap="round" ` +
    `stroke-dasharray="${arc} ${circumference.toFixed(1)}" transform="rotate(-90)"/>` +
    `<text y="14" text-anchor="middle" font-size="40" font-weight="700" fill="#ffffff">${grouped(opened)}</text>` +
    '<text y="52" text-anchor="middle" font-size="20" fill="#a9a3d9">app opens</text></g>' +
    `<text x="1120" y="590" text-anchor="end" font-size="20" fill="#a9a3d9">Last ${input.window} days · sampled · linkhop</text>` +
    '</svg>'
  );
}
