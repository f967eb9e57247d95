import type { Platform } from '../types.js';
import { cleanPart, enc, param } from '../url-parts.js';
import { DIGITS, define, noIos, SLUG } from './define.js';

const SPOTIFY_TYPES = new Set(['track', 'album', 'artist', 'playlist', 'show', 'episode', 'audiobook']);
const SPOTIFY_ID = /^[A-Za-z0-9]{1,64}$/;

export const spotify: Platform = define(
  {
    key: 'spotify',
    name: 'Spotify',
    hosts: ['open.spotify.com', 'play.spotify.com'],
    shortHosts: ['spotify.link', 'spoti.fi'],
    android: { package: 'com.spotify.music' },
    ios: { scheme: 'spotify', appStoreId: '324684580' },
    contentTypes: [
      'track',
      'album',
      'artist',
      'playlist',
      'show',
      'episode',
      'audiobook',
      'profile',
      'share',
    ],
  },
  ({ host, segs }) => {
    if (host === 'spotify.link' || host === 'spoti.fi') return segs.length === 1 ? { type: 'share' } : null;
    // open.spotify.com/intl-de/track/<id>: the locale prefix is not part of the content.
    const s = segs[0] && /^intl-[a-z]{2}$/i.test(segs[0]) ? segs.slice(1) : segs;
    const [a, b, c, d] = s;
    if (!a || !b) return null;
    if (s.length === 2 && SPOTIFY_TYPES.has(a) && SPOTIFY_ID.test(b)) return { type: a, id: b };
    if (a !== 'user' || !SLUG.test(b)) return null;
    if (s.length === 2) return { type: 'profile', user: b };
    // the legacy /user/<u>/playlist/<id> form
    return s.length === 4 && c === 'playlist' && d && SPOTIFY_ID.test(d) ? { type: 'playlist', id: d } : null;
  },
  ({ type, id, user }) => {
    if (id) return `spotify:${type}:${id}`;
    return user ? `spotify:user:${enc(user)}` : null;
  },
);

const COUNTRY = /^[a-z]{2}$/i;
const APPLE_MUSIC_KINDS: Record<string, string> = {
  album: 'album',
  song: 'track',
  playlist: 'playlist',
  artist: 'artist',
  'music-video': 'video',
  station: 'station',
  curator: 'curator',
};

/** Apple paths are /<cc>/<kind>/<slug>/<id> or /<cc>/<kind>/<id>; the country code is optional. */
function appleKind(segs: string[]): { kind: string; rest: string[] } | null {
  const s = segs[0] && COUNTRY.test(segs[0]) ? segs.slice(1) : segs;
  const [kind, ...rest] = s;
  return kind && rest.length >= 1 && rest.length <= 2 ? { kind, rest } : null;
}

export const appleMusic: Platform = define(
  {
    key: 'apple_music',
    name: 'Apple Music',
    hosts: ['music.apple.com', 'geo.music.apple.com'],
    shortHosts: [],
    // itunes.apple.com also serves podcasts and apps: only its music paths are Apple Music.
    scopedHosts: ['itunes.apple.com'],
    android: { package: 'com.apple.android.music' },
    ios: { scheme: 'music', appStoreId: '1108187390' },
    contentTypes: ['album', 'track', 'playlist', 'artist', 'video', 'station', 'curator'],
  },
  ({ segs, url }) => {
    const found = appleKind(segs);
    const type = found ? APPLE_MUSIC_KINDS[found.kind] : undefined;
    if (!type) return null;
    // an album URL with ?i=<trackId> is one track of it
    return { type: type === 'album' && DIGITS.test(param(url, 'i') ?? '') ? 'track' : type };
  },
  (_content, { url }) => `music://music.apple.com${cleanPart(url.pathname)}${cleanPart(url.search)}`,
);

export const applePodcasts: Platform = define(
  {
    key: 'apple_podcasts',
    name: 'Apple Podcasts',
    hosts: ['podcasts.apple.com'],
    shortHosts: [],
    scopedHosts: ['itunes.apple.com'],
    android: null,
    ios: { scheme: 'podcasts', appStoreId: null },
    contentTypes: ['show', 'episode', 'channel'],
  },
  ({ segs, url }) => {
    const found = appleKind(segs);
    if (!found || !/^id\d{1,15}$/.test(found.rest.at(-1) ?? '')) return null;
    if (found.kind === 'channel') return { type: 'channel' };
    if (found.kind !== 'podcast') return null;
    return { type: DIGITS.test(param(url, 'i') ?? '') ? 'episode' : 'show' };
  },
  (_content, { url }) => `podcasts://podcasts.apple.com${cleanPart(url.pathname)}${cleanPart(url.search)}`,
);

const SC_RESERVED = new Set([
  'discover',
  'stream',
  'search',
  'upload',
  'you',
  'settings',
  'pages',
  'terms-of-use',
  'jobs',
  'charts',
  'messages',
  'notifications',
  'mobile',
  'imprint',
  'pro',
  'stations',
  'people',
  'tags',
  'popular',
  'signin',
  'login',
  'logout',
  'connect',
  'creators',
  'artists',
  'premium',
  'go',
  'checkout',
  'feed',
  'home',
  'apps',
  'press',
  'community-guidelines',
]);
const SC_TABS = new Set([
  'tracks',
  'likes',
  'albums',
  'sets',
  'reposts',
  'popular-tracks',
  'followers',
  'following',
]);

export const soundcloud: Platform = define(
  {
    key: 'soundcloud',
    name: 'SoundCloud',
    hosts: ['soundcloud.com'],
    shortHosts: ['on.soundcloud.com', 'snd.sc'],
    android: { package: 'com.soundcloud.android' },
    ios: { scheme: 'soundcloud', appStoreId: '336353151' },
    contentTypes: ['home', 'profile', 'track', 'playlist', 'share'],
  },
  ({ host, segs }) => {
    const [a, b, c] = segs;
    const n = segs.length;
    if (host !== 'soundcloud.com') return n === 1 ? { type: 'share' } : null;
    if (a === undefined) return { type: 'home' };
    if (SC_RESERVED.has(a.toLowerCase()) || !SLUG.test(a) || n > 3) return null;
    if (n === 1 || (n === 2 && b && SC_TABS.has(b))) return { type: 'profile' };
    if (b === 'sets') return n === 3 && c && SLUG.test(c) ? { type: 'playlist' } : null;
    // /<user>/<track> and the private /<user>/<track>/s-<secret>
    if (b && SLUG.test(b) && (n === 2 || c?.startsWith('s-'))) return { type: 'track' };
    return null;
  },
  // The app's scheme wants numeric ids (soundcloud://sounds:<id>) that the web URL lacks.
  noIos,
);

const DEEZER_TYPES = new Set(['track', 'album', 'artist', 'playlist', 'show', 'episode', 'profile']);

export const deezer: Platform = define(
  {
    key: 'deezer',
    name: 'Deezer',
    hosts: ['deezer.com'],
    shortHosts: ['link.deezer.com', 'deezer.page.link'],
    android: { package: 'deezer.android.app' },
    ios: { scheme: 'deezer', appStoreId: '292738169' },
    contentTypes: ['track', 'album', 'artist', 'playlist', 'show', 'episode', 'profile', 'share'],
  },
  ({ host, segs }) => {
    if (host !== 'deezer.com') return segs.length >= 1 && segs.length <= 2 ? { type: 'share' } : null;
    const s = segs[0] && COUNTRY.test(segs[0]) ? segs.slice(1) : segs;
    const [a, b] = s;
    return s.length === 2 && a && DEEZER_TYPES.has(a) && b && DIGITS.test(b) ? { type: a } : null;
  },
  noIos,
);
