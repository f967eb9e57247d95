import type { Platform } from '../types.js';
import { enc, param } from '../url-parts.js';
import { DIGITS, define, query } from './define.js';

const IG_USER = /^[A-Za-z0-9_.]{1,30}$/;
const SHORTCODE = /^[A-Za-z0-9_-]{5,64}$/;
const IG_RESERVED = new Set([
  'accounts',
  'explore',
  'direct',
  'about',
  'legal',
  'developer',
  'p',
  'reel',
  'reels',
  'tv',
  'stories',
  'web',
  'emails',
  'challenge',
  'privacy',
  'session',
  'oauth',
  'graphql',
  'api',
  'static',
  'press',
  'terms',
  'help',
  'create',
  'download',
  'directory',
  'ar',
  'lite',
]);
const IG_MEDIA: Record<string, string> = { p: 'post', reel: 'reel', reels: 'reel', tv: 'video' };
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The numeric media id behind a post shortcode: the shortcode is that number written in base 64 over
 * A-Z a-z 0-9 - _. Ids exceed 2^53, hence BigInt. Longer codes (private posts) are not ids: null.
 */
export function instagramMediaId(shortcode: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,12}$/.test(shortcode)) return null;
  let id = 0n;
  for (const ch of shortcode) id = id * 64n + BigInt(BASE64URL.indexOf(ch));
  return id.toString();
}

export const instagram: Platform = define(
  {
    key: 'instagram',
    name: 'Instagram',
    hosts: ['instagram.com'],
    shortHosts: ['instagr.am', 'ig.me'],
    android: { package: 'com.instagram.android' },
    ios: { scheme: 'instagram', appStoreId: '389801252' },
    contentTypes: ['home', 'profile', 'post', 'reel', 'video', 'story', 'tag', 'location', 'chat'],
  },
  ({ host, segs }) => {
    if (host === 'ig.me') {
      return segs.length === 2 && segs[0] === 'm' && IG_USER.test(segs[1] ?? '') ? { type: 'chat' } : null;
    }
    // instagram.com/_u/<user> is the old "open in the app" profile form.
    const s = segs[0] === '_u' ? segs.slice(1) : segs;
    const [a, b, c] = s;
    if (a === undefined) return segs.length === 0 ? { type: 'home' } : null;
    if (s.length === 1) return !IG_RESERVED.has(a.toLowerCase()) && IG_USER.test(a) ? profile(a) : null;
    const media = IG_MEDIA[a];
    if (media && s.length === 2 && b && SHORTCODE.test(b)) return { type: media, code: b };
    // instagram.com/<user>/p/<code>, the newer share form
    const nested = b === undefined ? undefined : IG_MEDIA[b];
    if (nested && s.length === 3 && IG_USER.test(a) && c && SHORTCODE.test(c))
      return { type: nested, code: c };
    if (a === 'stories' && b && IG_USER.test(b) && s.length <= 3) return { type: 'story' };
    if (a === 'explore' && b === 'tags' && c && s.length === 3) return { type: 'tag', tag: c };
    if (a === 'explore' && b === 'locations' && c && DIGITS.test(c) && s.length <= 4) {
      return { type: 'location', id: c };
    }
    return null;
  },
  (content) => {
    if (content.type === 'home') return 'instagram://app';
    if (content.username) return `instagram://user?${query([['username', content.username]])}`;
    if (content.code) {
      const id = instagramMediaId(content.code);
      return id ? `instagram://media?id=${id}` : null;
    }
    if (content.tag) return `instagram://tag?${query([['name', content.tag]])}`;
    if (content.type === 'location' && content.id) return `instagram://location?id=${content.id}`;
    return null;
  },
);

function profile(username: string) {
  return { type: 'profile', username };
}

const FB_RESERVED = new Set([
  'login',
  'login.php',
  'logout.php',
  'help',
  'policies',
  'policy.php',
  'privacy',
  'terms',
  'terms.php',
  'about',
  'legal',
  'settings',
  'business',
  'ads',
  'recover',
  'dialog',
  'sharer',
  'sharer.php',
  'plugins',
  'tr',
  'careers',
  'l.php',
  'r.php',
  'home.php',
  'checkpoint',
  'messages',
  'notifications',
  'bookmarks',
  'friends',
  'search',
  'cookie',
  'privacy_sandbox',
  'gaming',
  'marketplace',
  'watch',
  'groups',
  'events',
  'reel',
  'share',
  'hashtag',
  'v2.0',
  'unsupportedbrowser',
]);
const FB_VANITY = /^[A-Za-z0-9.-]{1,80}$/;
const FB_SHARE: Record<string, string> = { p: 'post', r: 'reel', v: 'video' };
const FB_TABS: Record<string, string> = { posts: 'post', videos: 'video', photos: 'photo' };
const FB_HOSTS = ['facebook.com', 'web.facebook.com', 'mbasic.facebook.com', 'touch.facebook.com', 'fb.com'];

export const facebook: Platform = define(
  {
    key: 'facebook',
    name: 'Facebook',
    hosts: FB_HOSTS,
    shortHosts: ['fb.me', 'fb.watch'],
    android: { package: 'com.facebook.katana' },
    ios: { scheme: 'fb', appStoreId: '284882215' },
    contentTypes: ['home', 'profile', 'post', 'video', 'reel', 'photo', 'group', 'event', 'product', 'tag'],
  },
  ({ host, segs, url }) => {
    const [a, b, c] = segs;
    const n = segs.length;
    if (host === 'fb.watch') return n === 1 ? { type: 'video' } : null;
    if (host === 'fb.me') return n === 1 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    if (n === 1 && a === 'profile.php')
      return DIGITS.test(param(url, 'id') ?? '') ? { type: 'profile' } : null;
    if (n === 1 && a === 'watch') return param(url, 'v') ? { type: 'video' } : null;
    if (n === 1 && (a === 'story.php' || a === 'permalink.php')) {
      return param(url, 'story_fbid') ? { type: 'post' } : null;
    }
    if (n === 1 && (a === 'photo.php' || a === 'photo')) return param(url, 'fbid') ? { type: 'photo' } : null;
    if (a === 'reel' && n === 2 && b && DIGITS.test(b)) return { type: 'reel' };
    if (a === 'share' && n >= 2 && n <= 3) return { type: (b && n === 3 && FB_SHARE[b]) || 'share' };
    if (a === 'groups' && b && (n === 2 || (n === 4 && (c === 'posts' || c === 'permalink')))) {
      return { type: n === 2 ? 'group' : 'post' };
    }
    if (a === 'events' && n === 2 && b && DIGITS.test(b)) return { type: 'event' };
    if (a === 'marketplace' && b === 'item' && n === 3 && c && DIGITS.test(c)) return { type: 'product' };
    if ((a === 'people' || a === 'pages') && n === 3 && c && DIGITS.test(c)) return { type: 'profile' };
    if (a === 'hashtag' && n === 2) return { type: 'tag' };
    if (FB_RESERVED.has(a.toLowerCase()) || !FB_VANITY.test(a)) return null;
    if (n === 1) return { type: 'profile' };
    const tab = b === undefined ? undefined : FB_TABS[b];
    if (tab && n === 3) return { type: tab };
    if (n === 2 && (tab || b === 'reels' || b === 'about')) return { type: 'profile' };
    return null;
  },
  (_content, { host, url }) => {
    // fb://profile/<id> needs numeric ids that vanity URLs lack; facewebmodal opens any facebook.com URL.
    const origin = FB_HOSTS.includes(host) ? 'https://www.facebook.com' : `https://${url.host}`;
    return `fb://facewebmodal/f?href=${enc(`${origin}${url.pathname}${url.search}`)}`;
  },
);

const THREADS_USER = /^@[A-Za-z0-9_.]{1,30}$/;

export const threads: Platform = define(
  {
    key: 'threads',
    name: 'Threads',
    hosts: ['threads.com', 'threads.net'],
    shortHosts: [],
    android: { package: 'com.instagram.barcelona' },
    ios: { scheme: 'barcelona', appStoreId: '6446901002' },
    contentTypes: ['home', 'profile', 'post'],
  },
  ({ segs }) => {
    const [a, b, c] = segs;
    if (a === undefined) return { type: 'home' };
    if (a === 't' && segs.length === 2 && b && SHORTCODE.test(b)) return { type: 'post', code: b };
    if (!THREADS_USER.test(a)) return null;
    if (segs.length === 1) return { type: 'profile', username: a.slice(1) };
    if (segs.length === 3 && b === 'post' && c && SHORTCODE.test(c)) return { type: 'post', code: c };
    return null;
  },
  (content) => {
    if (content.username) return `barcelona://user?${query([['username', content.username]])}`;
    if (content.code) return `barcelona://media?${query([['shortcode', content.code]])}`;
    return null;
  },
);
