import type { Platform } from '../types.js';
import { amazon, ebay, etsy } from './commerce.js';
import { patreon, pinterest, reddit } from './community.js';
import { discord, messenger, telegram, whatsapp } from './messaging.js';
import { facebook, instagram, threads } from './meta.js';
import { appleMusic, applePodcasts, deezer, soundcloud, spotify } from './music.js';
import { googleMaps } from './other.js';
import { bluesky, linkedin, snapchat, tiktok, x } from './social.js';
import { netflix, twitch, vimeo, youtube, youtubeMusic } from './video.js';
import { slack, zoom } from './work.js';

/** The built-in table: the reference's 22 creator platforms first, then the extras. */
export const BUILTIN_PLATFORMS: readonly Platform[] = Object.freeze([
  youtube,
  youtubeMusic,
  instagram,
  tiktok,
  x,
  facebook,
  messenger,
  threads,
  whatsapp,
  telegram,
  snapchat,
  pinterest,
  linkedin,
  reddit,
  twitch,
  discord,
  spotify,
  appleMusic,
  soundcloud,
  amazon,
  patreon,
  bluesky,
  vimeo,
  googleMaps,
  etsy,
  ebay,
  deezer,
  applePodcasts,
  netflix,
  zoom,
  slack,
]);
