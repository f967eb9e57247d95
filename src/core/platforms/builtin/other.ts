import type { Platform } from '../types.js';
import { param } from '../url-parts.js';
import { type Content, define, query } from './define.js';

const AT_CENTER = /^@(-?\d{1,3}(?:\.\d+)?),(-?\d{1,3}(?:\.\d+)?)/;

/** What Google Maps shows for a /maps path: a search, a place, directions, or a map centre. */
function mapsContent(rest: string[], url: URL): Content {
  const [a, b] = rest;
  const center = rest.map((s) => AT_CENTER.exec(s)).find((m) => m !== null);
  const centerValue = center ? `${center[1]},${center[2]}` : undefined;
  if (a === 'dir') {
    const content: Content = { type: 'directions' };
    const daddr =
      param(url, 'destination') ?? (rest.length >= 3 && !rest[2]?.startsWith('@') ? rest[2] : null);
    if (daddr) content.daddr = daddr.replace(/\+/g, ' ');
    const saddr = param(url, 'origin');
    if (saddr) content.saddr = saddr;
    return content;
  }
  const q =
    param(url, 'q') ??
    param(url, 'query') ??
    ((a === 'place' || a === 'search') && b && !b.startsWith('@') ? b.replace(/\+/g, ' ') : null);
  const content: Content = { type: a === 'place' ? 'place' : q ? 'search' : 'map' };
  if (q) content.q = q;
  if (centerValue) content.center = centerValue;
  return content;
}

export const googleMaps: Platform = define(
  {
    key: 'google_maps',
    name: 'Google Maps',
    hosts: ['maps.google.com'],
    shortHosts: ['maps.app.goo.gl'],
    // google.com and goo.gl are Maps only under /maps.
    scopedHosts: ['google.com', 'goo.gl'],
    android: { package: 'com.google.android.apps.maps' },
    ios: { scheme: 'comgooglemaps', appStoreId: '585027354' },
    contentTypes: ['map', 'place', 'search', 'directions', 'share'],
  },
  ({ host, segs, url }) => {
    if (host === 'maps.app.goo.gl') return segs.length === 1 ? { type: 'share' } : null;
    if (host === 'goo.gl') return segs.length === 2 && segs[0] === 'maps' ? { type: 'share' } : null;
    if (host === 'google.com' && segs[0] !== 'maps') return null;
    return mapsContent(segs[0] === 'maps' ? segs.slice(1) : segs, url);
  },
  ({ type, q, center, daddr, saddr }) => {
    if (type === 'share') return null;
    if (type === 'directions') {
      return daddr
        ? `comgooglemaps://?${query([
            ['saddr', saddr],
            ['daddr', daddr],
          ])}`
        : 'comgooglemaps://';
    }
    // center is digits, dots, minus signs and one comma (checked by AT_CENTER): it stays readable.
    const qs = [query([['q', q]]), center ? `center=${center}` : ''].filter(Boolean).join('&');
    return qs ? `comgooglemaps://?${qs}` : 'comgooglemaps://';
  },
);
