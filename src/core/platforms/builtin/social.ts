import type { Platform } from '../types.js';
import { cleanPart, enc } from '../url-parts.js';
import { DIGITS, define, query, SLUG } from './define.js';

const X_HANDLE = /^[A-Za-z0-9_]{1,15}$/;
const X_RESERVED = new Set([
  'home',
  'explore',
  'search',
  'settings',
  'i',
  'messages',
  'notifications',
  'login',
  'logout',
  'signup',
  'tos',
  'privacy',
  'compose',
  'intent',
  'share',
  'hashtag',
  'account',
  'about',
  'jobs',
  'download',
  'rules',
  'help',
  'bookmarks',
  'communities',
  'premium',
  'lists',
  'oauth',
  'following',
  'followers',
]);
const X_PROFILE_TABS = new Set(['with_replies', 'media', 'likes', 'highlights', 'articles']);

export const x: Platform = define(
  {
    key: 'x',
    name: 'X',
    hosts: ['x.com', 'twitter.com'],
    // t.co is X's outbound wrapper, never X content: see the wrapper list in match.ts.
    shortHosts: [],
    android: { package: 'com.twitter.android' },
    ios: { scheme: 'twitter', appStoreId: '333903271' },
    contentTypes: ['home', 'profile', 'post', 'tag'],
  },
  ({ segs }) => {
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (a === undefined) return { type: 'home' };
    if (a === 'i' && b === 'web' && c === 'status' && d && DIGITS.test(d) && n === 4)
      return { type: 'post', id: d };
    if (a === 'i' && b === 'status' && c && DIGITS.test(c) && n === 3) return { type: 'post', id: c };
    if (a === 'hashtag' && b && n === 2) return { type: 'tag', tag: b };
    if (X_RESERVED.has(a.toLowerCase()) || !X_HANDLE.test(a)) return null;
    if (n === 1 || (n === 2 && b && X_PROFILE_TABS.has(b))) return { type: 'profile', handle: a };
    // /<handle>/status/<id>, optionally followed by /photo/1, /video/1, /analytics ...
    if ((b === 'status' || b === 'statuses') && c && DIGITS.test(c) && n <= 5) return { type: 'post', id: c };
    return null;
  },
  (content) => {
    if (content.type === 'home') return 'twitter://timeline';
    if (content.id) return `twitter://status?id=${content.id}`;
    if (content.handle) return `twitter://user?${query([['screen_name', content.handle]])}`;
    if (content.tag) return `twitter://search?${query([['query', `#${content.tag}`]])}`;
    return null;
  },
);

export const bluesky: Platform = define(
  {
    key: 'bluesky',
    name: 'Bluesky',
    hosts: ['bsky.app'],
    shortHosts: ['go.bsky.app'],
    android: { package: 'xyz.blueskyweb.app' },
    ios: { scheme: 'bluesky', appStoreId: '6444370199' },
    contentTypes: ['home', 'profile', 'post', 'feed', 'list', 'tag', 'starter_pack', 'share'],
  },
  ({ host, segs }) => {
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (host === 'go.bsky.app') return n === 1 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    if (a === 'hashtag' && n === 2) return { type: 'tag' };
    if (a === 'starter-pack' && n === 3) return { type: 'starter_pack' };
    if (a !== 'profile' || !b) return null;
    if (n === 2) return { type: 'profile' };
    const kind = c === 'post' ? 'post' : c === 'feed' ? 'feed' : c === 'lists' ? 'list' : null;
    return kind && n === 4 && d && SLUG.test(d) ? { type: kind } : null;
  },
  // The app's scheme takes the web path as is: bluesky://profile/<handle>/post/<rkey>.
  (content, { url }) =>
    content.type === 'home' || content.type === 'share'
      ? null
      : `bluesky://${cleanPart(url.pathname.slice(1))}`,
);

export const linkedin: Platform = define(
  {
    key: 'linkedin',
    name: 'LinkedIn',
    hosts: ['linkedin.com'],
    // lnkd.in is LinkedIn's outbound wrapper, not LinkedIn content: see match.ts.
    shortHosts: [],
    android: { package: 'com.linkedin.android' },
    ios: { scheme: 'linkedin', appStoreId: '288429040' },
    contentTypes: ['home', 'profile', 'company', 'post', 'article', 'job', 'event', 'newsletter'],
  },
  ({ segs }) => {
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (a === undefined) return { type: 'home' };
    if (!b) return a === 'feed' ? { type: 'home' } : null;
    if (a === 'in' && n <= 3) return { type: 'profile', vanity: b };
    if (a === 'company' && n <= 3) return { type: 'company', company: b };
    if ((a === 'school' || a === 'showcase') && n <= 3) return { type: 'company' };
    if (a === 'posts' && n === 2) return { type: 'post' };
    if (a === 'feed' && b === 'update' && c && n === 3) return { type: 'post' };
    if (a === 'pulse' && n === 2) return { type: 'article' };
    if (a === 'jobs' && b === 'view' && d === undefined && c && n === 3) return { type: 'job' };
    if (a === 'events' && n === 2) return { type: 'event' };
    if (a === 'newsletters' && n === 2) return { type: 'newsletter' };
    return null;
  },
  (content) => {
    if (content.vanity) return `linkedin://in/${enc(content.vanity)}`;
    if (content.company) return `linkedin://company/${enc(content.company)}`;
    return null;
  },
);

const TIKTOK_USER = /^@[A-Za-z0-9_.]{1,30}$/;

export const tiktok: Platform = define(
  {
    key: 'tiktok',
    name: 'TikTok',
    hosts: ['tiktok.com'],
    shortHosts: ['vm.tiktok.com', 'vt.tiktok.com'],
    // Pinning com.zhiliaoapp.musically fails on phones with the SE-Asia build (com.ss.android.ugc.trill):
    // the package-less https intent lets Android pick whichever TikTok build verified tiktok.com.
    android: { package: 'com.zhiliaoapp.musically', packageless: true },
    ios: { scheme: 'snssdk1233', appStoreId: '835599320' },
    contentTypes: ['home', 'profile', 'video', 'photo', 'tag', 'share'],
  },
  ({ host, segs }) => {
    const [a, b, c] = segs;
    const n = segs.length;
    if (host === 'vm.tiktok.com' || host === 'vt.tiktok.com') return n === 1 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    if (a === 't' && n === 2) return { type: 'share' };
    if (a === 'tag' && n === 2) return { type: 'tag' };
    if (!TIKTOK_USER.test(a)) return null;
    if (n === 1) return { type: 'profile' };
    if (n === 3 && b === 'video' && c && DIGITS.test(c)) return { type: 'video', id: c };
    if (n === 3 && b === 'photo' && c && DIGITS.test(c)) return { type: 'photo' };
    return null;
  },
  // Profiles need the numeric uid for a scheme URL; the universal link does better there.
  (content) => (content.id ? `snssdk1233://aweme/detail/${content.id}` : null),
);

const SNAP_USER = /^[A-Za-z0-9_.-]{1,30}$/;

export const snapchat: Platform = define(
  {
    key: 'snapchat',
    name: 'Snapchat',
    hosts: ['snapchat.com'],
    shortHosts: ['t.snapchat.com'],
    android: { package: 'com.snapchat.android' },
    ios: { scheme: 'snapchat', appStoreId: '447188370' },
    contentTypes: ['profile', 'share', 'discover', 'spotlight', 'lens'],
  },
  ({ host, segs }) => {
    const [a, b] = segs;
    const n = segs.length;
    if (host === 't.snapchat.com') return n === 1 ? { type: 'share' } : null;
    if (a === 'add' && b && SNAP_USER.test(b) && n === 2) return { type: 'profile', username: b };
    if (a?.startsWith('@') && SNAP_USER.test(a.slice(1)) && n <= 2)
      return { type: 'profile', username: a.slice(1) };
    if (a === 't' && n === 2) return { type: 'share' };
    if (a === 'discover' && n >= 2 && n <= 3) return { type: 'discover' };
    if (a === 'spotlight' && n === 2) return { type: 'spotlight' };
    if ((a === 'lens' && n === 2) || (a === 'unlock' && n === 1)) return { type: 'lens' };
    return null;
  },
  (content) => (content.username ? `snapchat://add/${enc(content.username)}` : null),
);
