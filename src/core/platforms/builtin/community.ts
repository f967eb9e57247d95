import type { Platform } from '../types.js';
import { cleanPart, enc, param } from '../url-parts.js';
import { define, noIos, query, SLUG } from './define.js';

// Country domains from the reference; the xx.pinterest.com locale subdomains are Pinterest's too.
const PINTEREST_TLDS = [
  'com',
  'co.uk',
  'de',
  'fr',
  'ca',
  'com.au',
  'es',
  'it',
  'jp',
  'com.mx',
  'pt',
  'ch',
  'at',
];
const PINTEREST_TLDS_MORE = ['nz', 'ie', 'ph', 'cl', 'co.kr', 'se', 'dk', 'ru'];
const PINTEREST_LOCALES = [
  'uk',
  'in',
  'br',
  'au',
  'ca',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'jp',
  'kr',
  'mx',
  'ar',
];
const PINTEREST_LOCALES_MORE = ['co', 'cl', 'pl', 'pt', 'ru', 'se', 'at', 'ch', 'nz', 'ie', 'ph', 'id', 'za'];

const PIN_USER = /^[A-Za-z0-9_]{3,30}$/;
const PIN_RESERVED = new Set([
  'pin',
  'search',
  'ideas',
  'today',
  'about',
  'business',
  'settings',
  'login',
  'logout',
  'signup',
  'oauth',
  'news_hub',
  'categories',
  'explore',
  'homefeed',
  'password',
  'help',
  'policy',
  'privacy',
  'terms',
  'resource',
  'discover',
  'edit',
  'shopping',
  'topics',
  'tv',
  'watch',
  'notifications',
  'messages',
  'board',
  'videos',
]);

export const pinterest: Platform = define(
  {
    key: 'pinterest',
    name: 'Pinterest',
    hosts: [
      ...[...PINTEREST_TLDS, ...PINTEREST_TLDS_MORE].map((tld) => `pinterest.${tld}`),
      ...[...PINTEREST_LOCALES, ...PINTEREST_LOCALES_MORE].map((cc) => `${cc}.pinterest.com`),
    ],
    shortHosts: ['pin.it'],
    android: { package: 'com.pinterest' },
    ios: { scheme: 'pinterest', appStoreId: '429047995' },
    contentTypes: ['home', 'pin', 'profile', 'board', 'search', 'share'],
  },
  ({ host, segs, url }) => {
    const [a, b, c] = segs;
    const n = segs.length;
    if (host === 'pin.it') return n === 1 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    if (a === 'pin' && b && n === 2) {
      // /pin/<id>/ and the newer /pin/<title>--<id>/
      const id = /^(?:[A-Za-z0-9-]*--)?(\d{1,25})$/.exec(b)?.[1];
      return id ? { type: 'pin', id } : { type: 'pin' };
    }
    if (a === 'search' && b === 'pins' && n === 2) {
      const q = param(url, 'q');
      return q ? { type: 'search', q } : null;
    }
    if (PIN_RESERVED.has(a.toLowerCase()) || !PIN_USER.test(a)) return null;
    if (n === 1 || (n === 2 && b?.startsWith('_'))) return { type: 'profile', user: a };
    if (n === 2 && b && SLUG.test(b)) return { type: 'board', user: a, board: b };
    if (n === 3 && b && SLUG.test(b) && c && SLUG.test(c)) return { type: 'board', user: a, board: b };
    return null;
  },
  (content) => {
    const { type, id, user, board, q } = content;
    if (type === 'pin') return id ? `pinterest://pin/${id}` : null;
    if (type === 'search' && q) return `pinterest://search/pins?${query([['q', q]])}`;
    if (type === 'board' && user && board) return `pinterest://board/${enc(user)}/${enc(board)}`;
    if (type === 'profile' && user) return `pinterest://user/${enc(user)}`;
    return null;
  },
);

const SUBREDDIT = /^[A-Za-z0-9_]{2,21}$/;
const REDDIT_USER = /^[A-Za-z0-9_-]{3,20}$/;
const REDDIT_ID = /^[a-z0-9]{1,12}$/i;
const SUB_TABS = new Set(['hot', 'new', 'top', 'rising', 'controversial', 'wiki', 'about']);

export const reddit: Platform = define(
  {
    key: 'reddit',
    name: 'Reddit',
    hosts: ['reddit.com', 'old.reddit.com', 'new.reddit.com', 'np.reddit.com'],
    shortHosts: ['redd.it'],
    android: { package: 'com.reddit.frontpage' },
    ios: { scheme: 'reddit', appStoreId: '1064216828' },
    contentTypes: ['home', 'community', 'post', 'profile', 'share'],
  },
  ({ host, segs }) => {
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (host === 'redd.it') return n === 1 && a && REDDIT_ID.test(a) ? { type: 'post', id: a } : null;
    if (a === undefined) return { type: 'home' };
    if ((a === 'comments' || a === 'gallery') && b && REDDIT_ID.test(b) && n <= 3) return { type: 'post' };
    if ((a === 'user' || a === 'u') && b && REDDIT_USER.test(b) && n <= 3) return { type: 'profile' };
    if (a !== 'r' || !b || !SUBREDDIT.test(b)) return null;
    if (n === 2 || (n === 3 && c && SUB_TABS.has(c))) return { type: 'community' };
    if (c === 'comments' && d && REDDIT_ID.test(d) && n <= 6) return { type: 'post' };
    // /r/<sub>/s/<code> share links resolve to a post inside the app.
    if (c === 's' && d && n === 4) return { type: 'share' };
    return null;
  },
  // The app takes reddit.com paths under its own scheme; redd.it/<id> is /comments/<id> there.
  (content, { url }) => {
    if (content.id) return `reddit://reddit.com/comments/${content.id}`;
    return `reddit://reddit.com${cleanPart(url.pathname)}`;
  },
);

const PATREON_RESERVED = new Set([
  'login',
  'signup',
  'home',
  'search',
  'settings',
  'messages',
  'notifications',
  'policy',
  'legal',
  'about',
  'product',
  'pricing',
  'create',
  'apps',
  'security',
  'careers',
  'join',
  'checkout',
  'api',
  'explore',
  'blog',
  'brand',
  'help',
  'library',
  'creators',
  'm',
  'c',
  'posts',
  'cw',
]);
const PATREON_TABS = new Set(['posts', 'about', 'membership', 'collections', 'shop', 'home']);

export const patreon: Platform = define(
  {
    key: 'patreon',
    name: 'Patreon',
    hosts: ['patreon.com'],
    shortHosts: [],
    android: { package: 'com.patreon.android' },
    ios: { scheme: 'patreon', appStoreId: '1044456188' },
    contentTypes: ['profile', 'post'],
  },
  ({ segs }) => {
    const [a, b] = segs;
    const n = segs.length;
    if (a === undefined) return null;
    if ((a === 'c' || a === 'cw') && b && SLUG.test(b) && n <= 3) return { type: 'profile' };
    if (a === 'posts' && b && SLUG.test(b) && n === 2) return { type: 'post' };
    if (PATREON_RESERVED.has(a.toLowerCase()) || !SLUG.test(a)) return null;
    return n === 1 || (n === 2 && b && PATREON_TABS.has(b)) ? { type: 'profile' } : null;
  },
  // Only the bare patreon:// scheme is known; the universal link carries the path.
  noIos,
);
