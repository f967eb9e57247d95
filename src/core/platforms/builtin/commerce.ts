import type { Platform } from '../types.js';
import { param } from '../url-parts.js';
import { DIGITS, define, lossless, noIos, SLUG } from './define.js';

const AMAZON_STORES = ['com', 'co.uk', 'de', 'fr', 'it', 'es', 'ca', 'com.mx', 'com.br', 'co.jp', 'in'];
const AMAZON_STORES_MORE = ['com.au', 'nl', 'se', 'pl', 'com.tr', 'ae', 'sa', 'sg', 'eg', 'com.be', 'cn'];
const AMAZON_SHORT = ['amzn.to', 'a.co', 'amzn.eu', 'amzn.asia'];
const ASIN = /^[A-Z0-9]{10}$/i;

export const amazon: Platform = define(
  {
    key: 'amazon',
    name: 'Amazon',
    hosts: [...AMAZON_STORES, ...AMAZON_STORES_MORE].map((tld) => `amazon.${tld}`),
    shortHosts: AMAZON_SHORT,
    android: { package: 'com.amazon.mShop.android.shopping' },
    ios: { scheme: 'com.amazon.mobile.shopping.web', appStoreId: '297606951' },
    contentTypes: ['home', 'product', 'storefront', 'store', 'search', 'wishlist', 'share'],
  },
  ({ host, segs, url }) => {
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (AMAZON_SHORT.includes(host)) return n >= 1 && n <= 2 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    // /dp/<ASIN> and /<slug>/dp/<ASIN>, optionally followed by a /ref=... segment
    const dp = segs.indexOf('dp');
    if ((dp === 0 || dp === 1) && ASIN.test(segs[dp + 1] ?? '') && n <= dp + 3) return { type: 'product' };
    if (a === 'gp' && b === 'product' && c && ASIN.test(c) && n <= 4) return { type: 'product' };
    if (a === 'gp' && b === 'aw' && c === 'd' && d && ASIN.test(d) && n <= 5) return { type: 'product' };
    if (a === 'shop' && b && SLUG.test(b) && n <= 3) return { type: 'storefront' };
    if (a === 'stores' && n >= 2) return { type: 'store' };
    if (a === 's' && n === 1) return param(url, 'k') ? { type: 'search' } : null;
    if (a === 'hz' && b === 'wishlist' && c === 'ls' && d && n === 4) return { type: 'wishlist' };
    return null;
  },
  // The app loads the web URL under its own scheme, so the Associates tag= survives untouched.
  (content, { url }) => (content.type === 'share' ? null : lossless('com.amazon.mobile.shopping.web', url)),
);

const EBAY_DOMAINS = ['com', 'co.uk', 'de', 'fr', 'it', 'es', 'ca', 'com.au', 'at', 'ch', 'be', 'nl'];
const EBAY_DOMAINS_MORE = ['ie', 'pl', 'com.sg', 'com.my', 'ph', 'com.hk'];

export const ebay: Platform = define(
  {
    key: 'ebay',
    name: 'eBay',
    hosts: [
      ...[...EBAY_DOMAINS, ...EBAY_DOMAINS_MORE].map((tld) => `ebay.${tld}`),
      // Belgium's two language sites
      'befr.ebay.be',
      'benl.ebay.be',
    ],
    shortHosts: ['ebay.us'],
    android: { package: 'com.ebay.mobile' },
    ios: { scheme: 'ebay', appStoreId: '282614216' },
    contentTypes: ['home', 'product', 'profile', 'store', 'search', 'share'],
  },
  ({ host, segs }) => {
    const [a, b, c] = segs;
    const n = segs.length;
    if (host === 'ebay.us') return n >= 1 && n <= 2 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    // /itm/<id> and /itm/<slug>/<id>
    if (a === 'itm' && ((n === 2 && DIGITS.test(b ?? '')) || (n === 3 && DIGITS.test(c ?? '')))) {
      return { type: 'product' };
    }
    if (a === 'usr' && b && n === 2) return { type: 'profile' };
    if (a === 'str' && b && n === 2) return { type: 'store' };
    if (a === 'sch' && n >= 1 && n <= 3) return { type: 'search' };
    return null;
  },
  noIos,
);

const ETSY_LOCALE = /^[a-z]{2}(-[a-z]{2})?$/i;

export const etsy: Platform = define(
  {
    key: 'etsy',
    name: 'Etsy',
    hosts: ['etsy.com'],
    shortHosts: ['etsy.me'],
    android: { package: 'com.etsy.android' },
    ios: { scheme: 'etsy', appStoreId: '477128284' },
    contentTypes: ['home', 'product', 'shop', 'share'],
  },
  ({ host, segs }) => {
    if (host === 'etsy.me') return segs.length === 1 ? { type: 'share' } : null;
    // etsy.com/uk/listing/<id>/<slug>: a locale prefix before the content path
    const s = segs[0] && ETSY_LOCALE.test(segs[0]) && segs.length > 1 ? segs.slice(1) : segs;
    const [a, b] = s;
    if (a === undefined) return segs.length === 0 ? { type: 'home' } : null;
    if (a === 'listing' && b && DIGITS.test(b) && s.length <= 3) return { type: 'product' };
    if (a === 'shop' && b && SLUG.test(b) && s.length === 2) return { type: 'shop' };
    return null;
  },
  noIos,
);
