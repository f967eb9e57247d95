/* The pages a short link's address serves besides the redirect and the escape page, as visit responses. */
import { renderCaptureForm } from '../audience/capture-form.js';
import { fallbackPageCsp, renderFallbackPage } from '../core/pages/fallback-page.js';
import { renderNotFoundPage } from '../core/pages/index.js';
import { passwordPageCsp, renderPasswordPage } from '../core/pages/password-page.js';
import { qrQueryOf, type VisitSource } from '../core/visit-source.js';
import type { HostedLinkEntry } from './link-cache.js';
import type { VisitResponse } from './respond.js';

/** An HTML page as a visit response: its UTF-8 as a byte string (respond.ts), its length said. */
function htmlResponse(status: number, html: string, headers: Record<string, string>): VisitResponse {
  const body = Buffer.from(html, 'utf8').toString('latin1');
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      ...headers,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-length': String(body.length),
    },
    body,
  };
}

/** No link has this slug on this host. Static, so built once. */
export const NOT_FOUND: VisitResponse = Object.freeze(htmlResponse(404, renderNotFoundPage(), {}));

/** The password form: on a locked visit (200), after a wrong password (401) or too many tries (429). */
export function passwordForm(
  deps: { nonce: () => string },
  entry: Pick<HostedLinkEntry, 'slug' | 'branded' | 'pixels'>,
  status: 200 | 401 | 429,
  source: VisitSource,
  error?: 'wrong' | 'too_many',
): VisitResponse {
  const nonce = deps.nonce();
  const html = renderPasswordPage({
    // A QR visit posts back with its marker, so the unlocked visit still counts as a scan.
    action: `/${entry.slug}${qrQueryOf(source)}`,
    nonce,
    error: error ?? null,
    branded: entry.branded,
    pixels: entry.pixels,
  });
  return htmlResponse(status, html, {
    'content-security-policy': passwordPageCsp(nonce, { pixels: entry.pixels.length > 0 }),
  });
}

/** The rich fallback page (richFallback plans): the destination's preview, a Continue button, the capture form. */
export function fallbackPage(
  deps: { nonce: () => string },
  entry: Pick<HostedLinkEntry, 'slug' | 'branded' | 'pixels'>,
  fallback: NonNullable<HostedLinkEntry['fallback']>,
  destination: string,
): VisitResponse {
  const nonce = deps.nonce();
  const html = renderFallbackPage({
    nonce,
    destination,
    preview: fallback.preview,
    branded: entry.branded,
    pixels: entry.pixels,
    ...(fallback.capture
      ? { captureForm: renderCaptureForm({ slug: entry.slug, orgName: fallback.capture.orgName, nonce }) }
      : {}),
  });
  return htmlResponse(200, html, {
    'content-security-policy': fallbackPageCsp(nonce, {
      pixels: entry.pixels.length > 0,
      capture: fallback.capture !== null,
    }),
  });
}
