import type { Platform } from '../types.js';
import { param } from '../url-parts.js';
import { type Content, DIGITS, define, lossless, noIos, query, SLUG } from './define.js';

// Real ids are 11 characters; any id-shaped value is left for the app to judge.
const VIDEO_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const youtube: Platform = define(
  {
    key: 'youtube',
    name: 'YouTube',
    hosts: ['youtube.com'],
    shortHosts: ['youtu.be'],
    android: { package: 'com.google.android.youtube' },
    ios: { scheme: 'youtube', appStoreId: '544007664' },
    contentTypes: ['home', 'video', 'short', 'live', 'channel', 'playlist'],
  },
  ({ host, segs, url }) => {
    const [a, b] = segs;
    if (host === 'youtu.be')
      return segs.length === 1 && a && VIDEO_ID.test(a) ? { type: 'video', id: a } : null;
    if (a === undefined) return { type: 'home' };
    if (a === 'watch' && segs.length === 1) {
      const v = param(url, 'v');
      return v && VIDEO_ID.test(v) ? { type: 'video' } : null;
    }
    if ((a === 'shorts' || a === 'live') && b && VIDEO_ID.test(b) && segs.length === 2) {
      return { type: a === 'shorts' ? 'short' : 'live' };
    }
    if (a === 'playlist' && segs.length === 1) return param(url, 'list') ? { type: 'playlist' } : null;
    if (a.startsWith('@') && a.length > 1 && segs.length <= 2) return { type: 'channel' };
    if ((a === 'channel' || a === 'c' || a === 'user') && b && segs.length <= 3) return { type: 'channel' };
    return null;
  },
  (content, { url }) => {
    const id = content.id;
    if (id === undefined) return lossless('youtube', url, 'www.youtube.com');
    // youtu.be/<id>?t=.. becomes watch?v=<id>&t=..: the app has no youtu.be path of its own.
    const rest = [...url.searchParams].filter(([k]) => k !== 'v');
    return `youtube://www.youtube.com/watch?${query([['v', id], ...rest])}`;
  },
);

export const youtubeMusic: Platform = define(
  {
    key: 'youtube_music',
    name: 'YouTube Music',
    hosts: ['music.youtube.com'],
    shortHosts: [],
    android: { package: 'com.google.android.apps.youtube.music' },
    ios: { scheme: 'youtubemusic', appStoreId: '1017492454' },
    contentTypes: ['home', 'track', 'album', 'playlist', 'artist'],
  },
  ({ segs, url }) => {
    const [a, b] = segs;
    if (a === undefined) return { type: 'home' };
    if (segs.length === 1 && a === 'watch') return param(url, 'v') ? { type: 'track' } : null;
    if (segs.length === 1 && a === 'playlist') {
      const list = param(url, 'list');
      if (!list) return null;
      return { type: list.startsWith('OLAK5uy_') ? 'album' : 'playlist' };
    }
    if (segs.length === 2 && a === 'browse' && b?.startsWith('MPREb_')) return { type: 'album' };
    if (segs.length === 2 && a === 'channel' && b) return { type: 'artist' };
    return null;
  },
  (_content, { url }) => lossless('youtubemusic', url, 'music.youtube.com'),
);

const TWITCH_RESERVED = new Set([
  'directory',
  'videos',
  'settings',
  'login',
  'signup',
  'p',
  'jobs',
  'turbo',
  'downloads',
  'search',
  'subscriptions',
  'inventory',
  'wallet',
  'drops',
  'friends',
  'messages',
  'prime',
  'store',
  'broadcast',
  'moderator',
  'popout',
  'embed',
  'bits',
  'products',
  'legal',
  'privacy',
  'user',
]);
const TWITCH_CHANNEL = /^[A-Za-z0-9_]{2,25}$/;

export const twitch: Platform = define(
  {
    key: 'twitch',
    name: 'Twitch',
    hosts: ['twitch.tv', 'clips.twitch.tv'],
    shortHosts: [],
    android: { package: 'tv.twitch.android.app' },
    ios: { scheme: 'twitch', appStoreId: '460177396' },
    contentTypes: ['home', 'channel', 'video', 'clip'],
  },
  ({ host, segs }) => {
    const [a, b, c] = segs;
    if (host === 'clips.twitch.tv') {
      return segs.length === 1 && a && a !== 'embed' && SLUG.test(a) ? { type: 'clip' } : null;
    }
    if (a === undefined) return { type: 'home' };
    if (a === 'videos') return segs.length === 2 && b && DIGITS.test(b) ? { type: 'video' } : null;
    if (TWITCH_RESERVED.has(a.toLowerCase()) || !TWITCH_CHANNEL.test(a)) return null;
    if (b === 'clip' && c && SLUG.test(c) && segs.length === 3) return { type: 'clip' };
    if (segs.length === 1) return { type: 'channel', channel: a };
    if (segs.length === 2 && (b === 'videos' || b === 'about' || b === 'schedule')) {
      return { type: 'channel', channel: a };
    }
    return null;
  },
  (content: Content) => (content.channel ? `twitch://stream/${content.channel.toLowerCase()}` : null),
);

export const vimeo: Platform = define(
  {
    key: 'vimeo',
    name: 'Vimeo',
    hosts: ['vimeo.com', 'player.vimeo.com'],
    shortHosts: [],
    android: { package: 'com.vimeo.android.videoapp' },
    ios: { scheme: 'vimeo', appStoreId: '425194759' },
    contentTypes: ['video', 'channel', 'showcase'],
  },
  ({ host, segs }) => {
    const [a, b, c, d] = segs;
    if (host === 'player.vimeo.com') {
      return segs.length === 2 && a === 'video' && b && DIGITS.test(b) ? { type: 'video' } : null;
    }
    if (a === undefined) return null;
    // vimeo.com/<id> and unlisted vimeo.com/<id>/<hash>
    if (DIGITS.test(a) && segs.length <= 2) return { type: 'video' };
    if (a === 'channels' && b && SLUG.test(b)) {
      if (segs.length === 2) return { type: 'channel' };
      return segs.length === 3 && c && DIGITS.test(c) ? { type: 'video' } : null;
    }
    if (a === 'groups' && c === 'videos' && d && DIGITS.test(d) && segs.length === 4)
      return { type: 'video' };
    if (a === 'showcase' && b && DIGITS.test(b) && segs.length <= 3) return { type: 'showcase' };
    return null;
  },
  noIos,
);

const LOCALE = /^[a-z]{2}(-[a-z]{2})?$/i;

export const netflix: Platform = define(
  {
    key: 'netflix',
    name: 'Netflix',
    hosts: ['netflix.com'],
    shortHosts: [],
    android: { package: 'com.netflix.mediaclient' },
    ios: { scheme: 'nflx', appStoreId: '363590051' },
    contentTypes: ['home', 'title', 'video'],
  },
  ({ segs }) => {
    // netflix.com/gb/title/<id> carries a country prefix; the app takes the path without it.
    const rest = segs[0] && LOCALE.test(segs[0]) && segs.length === 3 ? segs.slice(1) : segs;
    const [a, b] = rest;
    if (a === undefined || (a === 'browse' && rest.length === 1)) return { type: 'home' };
    if (rest.length === 2 && b && DIGITS.test(b)) {
      if (a === 'title') return { type: 'title', path: `/title/${b}` };
      if (a === 'watch') return { type: 'video', path: `/watch/${b}` };
    }
    return null;
  },
  (content) => (content.path ? `nflx://www.netflix.com${content.path}` : null),
);
