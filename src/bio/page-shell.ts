import { escapeAttr, escapeHtml, safeHref } from '../core/pages/escape-html.js';
import { isCssColour, type Theme } from './schema.js';

/**
 * The frame shared by the public creator pages (bio page, media kit): head, Open Graph tags, theme
 * variables and the CSP. Pure string building; every interpolated value goes through an escaper.
 */

export const DEFAULT_THEME: Theme = { bg: '#f6f4ef', ink: '#17161c', accent: '#5b4bff' };

/** No script at all; styles only with this response's nonce; images from https or inline data. */
export function creatorPageCsp(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** Stored colours were validated on save; checked again here because they land inside <style>. */
export function themeVars(theme: Theme | null): string {
  const pick = (value: string | undefined, fallback: string) =>
    value && isCssColour(value) ? value.trim() : fallback;
  const t = {
    bg: pick(theme?.bg, DEFAULT_THEME.bg),
    ink: pick(theme?.ink, DEFAULT_THEME.ink),
    accent: pick(theme?.accent, DEFAULT_THEME.accent),
  };
  return `:root{--bg:${t.bg};--ink:${t.ink};--ac:${t.accent}}`;
}

const BASE_CSS =
  '*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}' +
  'body{margin:0;min-height:100vh;background:var(--bg);color:var(--ink);' +
  'font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;-webkit-font-smoothing:antialiased}' +
  'main{max-width:34rem;margin:0 auto;padding:2.5rem 1.25rem 2rem}' +
  '.hd{text-align:center;margin-bottom:1.75rem}' +
  '.av{width:96px;height:96px;border-radius:50%;object-fit:cover;display:block;margin:0 auto 1rem;' +
  'box-shadow:0 0 0 3px var(--bg),0 0 0 5px var(--ac)}' +
  '.ini{display:flex;align-items:center;justify-content:center;background:var(--ac);color:#fff;font-size:2.5rem;font-weight:700}' +
  'h1{font-size:1.45rem;line-height:1.25;margin:0;overflow-wrap:anywhere}' +
  '.at{opacity:.62;font-size:.92rem;margin-top:.15rem}' +
  '.bio{margin:.75rem auto 0;max-width:28rem;opacity:.85;white-space:pre-line;overflow-wrap:anywhere}' +
  'footer{margin-top:2.5rem;text-align:center;font-size:.8rem;opacity:.6}footer a{color:inherit}';

export interface ShellInput {
  nonce: string;
  /** Absolute URL of this page, for og:url and the canonical link. */
  url: string;
  title: string;
  description: string;
  image: string | null;
  /** A wide share image (the media kit card) rather than a square avatar. */
  largeImage?: boolean;
  theme: Theme | null;
  css: string;
  body: string;
}

export function renderShell(input: ShellInput): string {
  const nonce = escapeAttr(input.nonce);
  const image = input.image ? safeHref(input.image) : '#';
  const meta = (property: string, content: string) =>
    `<meta property="${property}" content="${escapeAttr(content)}">`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">' +
    `<title>${escapeHtml(input.title)}</title>` +
    `<meta name="description" content="${escapeAttr(input.description)}">` +
    `<link rel="canonical" href="${escapeAttr(safeHref(input.url))}">` +
    meta('og:type', 'profile') +
    meta('og:title', input.title) +
    meta('og:description', input.description) +
    meta('og:url', safeHref(input.url)) +
    (image.startsWith('https://') || image.startsWith('http://') ? meta('og:image', image) : '') +
    `<meta name="twitter:card" content="${input.largeImage ? 'summary_large_image' : 'summary'}">` +
    `<meta name="theme-color" content="${escapeAttr(themeVars(input.theme).match(/--bg:([^;]+);/)?.[1] ?? DEFAULT_THEME.bg)}">` +
    `<style nonce="${nonce}">${themeVars(input.theme)}${BASE_CSS}${input.css}</style></head>` +
    `<body><main>${input.body}</main></body></html>`
  );
}

/** Avatar image (https only) or the first letter of the title on the accent colour. */
export function avatarHtml(avatarUrl: string | null, title: string): string {
  const href = avatarUrl ? safeHref(avatarUrl) : '#';
  if (href.startsWith('https://'))
    return `<img class="av" src="${escapeAttr(href)}" alt="" width="96" height="96">`;
  const initial = Array.from(title.trim())[0]?.toUpperCase() ?? '@';
  return `<div class="av ini" aria-hidden="true">${escapeHtml(initial)}</div>`;
}

export function brandFooter(branded: boolean): string {
  return branded ? '<footer>Made with <a href="https://github.com/linkhop/linkhop">linkhop</a></footer>' : '';
}
