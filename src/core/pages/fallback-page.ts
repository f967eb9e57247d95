import { escapeAttr, escapeHtml, safeHref } from './escape-html.js';
import { type PagePixel, PIXEL_CSP, pixelScript } from './pixels.js';

/**
 * The rich fallback page (plans with richFallback): where a visitor lands when the app hand-off failed,
 * instead of a bare redirect: the destination's preview and one clear way on.
 */
export interface FallbackPageInput {
  nonce: string;
  /** Where "Continue" goes: the chosen destination, UTM composed. */
  destination: string;
  preview: { title: string | null; description: string | null; image: string | null } | null;
  branded?: boolean;
  pixels?: readonly PagePixel[];
  /** The email capture form, already rendered with this response's nonce (audience capture). */
  captureForm?: string;
}

export function fallbackPageCsp(
  nonce: string,
  options: { pixels?: boolean; capture?: boolean } = {},
): string {
  const { pixels = false, capture = false } = options;
  let scripts = '';
  if (pixels || capture) {
    const connect = `${capture ? " 'self'" : ''}${pixels ? PIXEL_CSP.connect : ''}`;
    scripts =
      `script-src 'nonce-${nonce}'${pixels ? PIXEL_CSP.script : ''}; connect-src${connect}; ` +
      (pixels ? PIXEL_CSP.frame : '');
  }
  return (
    `default-src 'none'; ${scripts}style-src 'nonce-${nonce}'; img-src https: data:; ` +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
  );
}

const CSS =
  ':root{color-scheme:light dark}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;' +
  'font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f5f7;color:#111}' +
  'main{width:100%;max-width:26rem;padding:1.5rem}article{background:#fff;border-radius:1rem;overflow:hidden;' +
  'box-shadow:0 1px 3px rgba(0,0,0,.12)}img{display:block;width:100%;aspect-ratio:1.91/1;object-fit:cover;background:#ddd}' +
  '.t{padding:1rem}h1{font-size:1.15rem;margin:0 0 .4rem;overflow-wrap:anywhere}p{margin:0;color:#555;font-size:.95rem}' +
  '.h{margin-top:.6rem;color:#777;font-size:.85rem;overflow-wrap:anywhere}' +
  '.b{display:block;margin-top:1.25rem;padding:1rem;border-radius:.75rem;background:#111;color:#fff;text-align:center;' +
  'font-weight:600;text-decoration:none}footer{margin-top:1.5rem;text-align:center;font-size:.8rem}footer a{color:#777}' +
  '@media(prefers-color-scheme:dark){body{background:#111;color:#eee}article{background:#1d1d1f}p{color:#bbb}.b{background:#fff;color:#111}}';

export function renderFallbackPage(input: FallbackPageInput): string {
  const nonce = escapeAttr(input.nonce);
  const href = safeHref(input.destination);
  let host = '';
  try {
    host = new URL(input.destination).host;
  } catch {
    host = '';
  }
  const preview = input.preview;
  const title = preview?.title ?? host;
  const image = preview?.image ? safeHref(preview.image) : '#';
  const pixels = pixelScript(input.pixels ?? []);
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title><style nonce="${nonce}">${CSS}</style></head><body><main><article>` +
    (image.startsWith('https://') ? `<img src="${escapeAttr(image)}" alt="">` : '') +
    `<div class="t"><h1>${escapeHtml(title)}</h1>` +
    (preview?.description ? `<p>${escapeHtml(preview.description)}</p>` : '') +
    `<div class="h">${escapeHtml(host)}</div></div></article>` +
    `<a class="b" href="${escapeAttr(href)}">Continue to ${escapeHtml(host || 'the website')}</a>` +
    (input.captureForm ?? '') +
    (input.branded ? '<footer><a href="https://github.com/linkhop/linkhop">linkhop</a></footer>' : '') +
    `</main>${pixels === '' ? '' : `<script nonce="${nonce}">${pixels}</script>`}</body></html>`
  );
}
