/**
 * Where a visit came from: the short URL itself, or the link's QR code. A QR code encodes the short URL
 * with a query marker (as Dub's `?qr=1`), never a path, which could shadow a slug. The redirect never
 * forwards the visit's query string, so the marker never reaches the destination; codes made before the
 * marker carry none and count as `link`.
 */

export const VISIT_SOURCES = ['link', 'qr'] as const;
export type VisitSource = (typeof VISIT_SOURCES)[number];

const QR_MARKER = 'qr=1';

/** The address a link's QR code encodes: its short URL with the marker. */
export function qrCodeUrl(shortUrl: string): string {
  return `${shortUrl}${shortUrl.includes('?') ? '&' : '?'}${QR_MARKER}`;
}

/** The source of a request's URL (path and query): `qr` when its query carries the marker. */
export function visitSourceOf(url: string | undefined): VisitSource {
  const query = url === undefined ? -1 : url.indexOf('?');
  if (query === -1) return 'link';
  const params = (url as string).slice(query + 1).split('&');
  return params.includes(QR_MARKER) ? 'qr' : 'link';
}

/** The marker as a query string, for a form or redirect that must keep a QR visit's source. */
export const qrQueryOf = (source: VisitSource): string => (source === 'qr' ? `?${QR_MARKER}` : '');
