import { escapeAttr, escapeHtml, safeHref } from '../core/pages/escape-html.js';
import { avatarHtml, brandFooter, renderShell } from './page-shell.js';
import type { PublicBio, PublicBlock } from './schema.js';

/**
 * The public bio page /@handle as HTML: mobile-first, no JavaScript, no external assets. Every link
 * block points at the service link (never the destination), so a tap goes through the redirect: it
 * leaves the in-app browser and is counted.
 */

export interface BioPageHtmlInput {
  page: PublicBio;
  nonce: string;
  /** Absolute address of this page, e.g. https://lnk.example/@ada. */
  url: string;
  branded: boolean;
}

const CSS =
  '.bl{display:flex;flex-direction:column;gap:.8rem}' +
  '.l{display:block;padding:1rem 1.15rem;border-radius:1rem;text-decoration:none;color:var(--ink);text-align:center;' +
  'border:2px solid var(--ac);background:rgba(127,127,127,.08);font-weight:600;overflow-wrap:anywhere;' +
  'transition:transform .12s ease,background .12s ease}' +
  '.l:hover,.l:focus-visible{background:var(--ac);color:#fff;transform:translateY(-1px)}' +
  '.l:focus-visible{outline:3px solid var(--ink);outline-offset:2px}' +
  '.l small{display:block;font-weight:400;font-size:.85rem;opacity:.75;margin-top:.15rem}' +
  'h2{font-size:.8rem;letter-spacing:.08em;text-transform:uppercase;opacity:.65;margin:1rem 0 0;text-align:center}' +
  '.tx{margin:0;text-align:center;opacity:.85;white-space:pre-line;overflow-wrap:anywhere}' +
  '.so{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem;margin:.25rem 0}' +
  '.so a{padding:.45rem .9rem;border-radius:999px;background:var(--ac);color:#fff;text-decoration:none;' +
  'font-size:.85rem;font-weight:600;text-transform:capitalize}' +
  '.so a:focus-visible{outline:3px solid var(--ink);outline-offset:2px}' +
  '@media(min-width:40rem){main{padding-top:4rem}.av{width:112px;height:112px}h1{font-size:1.7rem}}' +
  '@media(prefers-reduced-motion:reduce){.l{transition:none}}';

const href = (url: string) => escapeAttr(safeHref(url));

export function renderBlock(block: PublicBlock): string {
  switch (block.t) {
    case 'link':
      return (
        `<a class="l" href="${href(block.url)}">${escapeHtml(block.label)}` +
        (block.note ? `<small>${escapeHtml(block.note)}</small>` : '') +
        '</a>'
      );
    case 'header':
      return `<h2>${escapeHtml(block.text)}</h2>`;
    case 'text':
      return `<p class="tx">${escapeHtml(block.text)}</p>`;
    case 'social':
      return `<nav class="so" aria-label="Social">${block.items
        .map((item) => `<a href="${href(item.url)}">${escapeHtml(item.key.replace(/[-_]/g, ' '))}</a>`)
        .join('')}</nav>`;
  }
}

export function renderBioPage(input: BioPageHtmlInput): string {
  const { page } = input;
  const description = page.bio ?? `Links from @${page.handle}`;
  const body =
    `<header class="hd">${avatarHtml(page.avatarUrl, page.title)}` +
    `<h1>${escapeHtml(page.title)}</h1><div class="at">@${escapeHtml(page.handle)}</div>` +
    (page.bio ? `<p class="bio">${escapeHtml(page.bio)}</p>` : '') +
    '</header>' +
    `<div class="bl">${page.blocks.map(renderBlock).join('')}</div>` +
    brandFooter(input.branded);
  return renderShell({
    nonce: input.nonce,
    url: input.url,
    title: `${page.title} (@${page.handle})`,
    description,
    image: page.avatarUrl,
    theme: page.theme,
    css: CSS,
    body,
  });
}
