import type { Platform } from '../types.js';
import { param } from '../url-parts.js';
import { DIGITS, define, noIos, query, SLUG } from './define.js';

export const messenger: Platform = define(
  {
    key: 'messenger',
    name: 'Messenger',
    hosts: ['messenger.com'],
    shortHosts: ['m.me'],
    android: { package: 'com.facebook.orca' },
    ios: { scheme: 'fb-messenger', appStoreId: '454638411' },
    contentTypes: ['chat', 'invite'],
  },
  ({ host, segs }) => {
    const [a, b] = segs;
    const n = segs.length;
    if (host === 'm.me') {
      if (a === 'j' && b && SLUG.test(b) && n === 2) return { type: 'invite' };
      return n === 1 && a && SLUG.test(a) ? { type: 'chat', id: a } : null;
    }
    return a === 't' && b && SLUG.test(b) && n === 2 ? { type: 'chat', id: b } : null;
  },
  // user-thread wants the numeric id; m.me/<pagename> keeps the universal link.
  (content) => (content.id && DIGITS.test(content.id) ? `fb-messenger://user-thread/${content.id}` : null),
);

const PHONE = /^\+?\d{5,15}$/;

/** The digits of a phone number as WhatsApp wants them, or null when it is not one. */
function phoneDigits(value: string | null): string | null {
  if (value === null) return null;
  const digits = value.replace(/[\s().-]/g, '');
  return PHONE.test(digits) ? digits.replace('+', '') : null;
}

export const whatsapp: Platform = define(
  {
    key: 'whatsapp',
    name: 'WhatsApp',
    hosts: ['wa.me', 'api.whatsapp.com', 'chat.whatsapp.com'],
    shortHosts: [],
    // whatsapp.com itself is the corporate site; only its /channel/ pages are app content.
    scopedHosts: ['whatsapp.com'],
    android: { package: 'com.whatsapp' },
    ios: { scheme: 'whatsapp', appStoreId: '310633997' },
    contentTypes: ['chat', 'share', 'invite', 'channel', 'catalog'],
  },
  ({ host, segs, url }) => {
    const [a, b] = segs;
    const n = segs.length;
    const text = param(url, 'text');
    if (host === 'wa.me') {
      if (n === 0) return text ? { type: 'share', text } : null;
      if (n === 1 && a) {
        const phone = phoneDigits(a);
        return phone ? { type: 'chat', phone, text: text ?? undefined } : null;
      }
      if (a === 'message' && b && SLUG.test(b) && n === 2) return { type: 'chat' };
      return a === 'c' && phoneDigits(b ?? null) && n === 2 ? { type: 'catalog' } : null;
    }
    if (host === 'api.whatsapp.com') {
      if (a !== 'send' || n !== 1) return null;
      const phone = phoneDigits(param(url, 'phone'));
      if (phone) return { type: 'chat', phone, text: text ?? undefined };
      return text ? { type: 'share', text } : null;
    }
    if (host === 'chat.whatsapp.com') return n === 1 && a && SLUG.test(a) ? { type: 'invite' } : null;
    return a === 'channel' && b && SLUG.test(b) && n === 2 ? { type: 'channel' } : null;
  },
  // Group invites and channels have no scheme form: the universal link opens them.
  ({ type, phone, text }) => {
    if (type === 'chat' && phone)
      return `whatsapp://send?${query([
        ['phone', phone],
        ['text', text],
      ])}`;
    if (type === 'share' && text) return `whatsapp://send?${query([['text', text]])}`;
    return null;
  },
);

const TG_NAME = /^[A-Za-z][A-Za-z0-9_]{3,31}$/;
const TG_RESERVED = new Set([
  'joinchat',
  'share',
  'addstickers',
  'addemoji',
  'addtheme',
  'addlist',
  'proxy',
  'socks',
  'setlanguage',
  'login',
  'invoice',
  'boost',
  'contact',
  'confirmphone',
  'giftcode',
]);

export const telegram: Platform = define(
  {
    key: 'telegram',
    name: 'Telegram',
    hosts: ['t.me', 'telegram.me', 'telegram.dog'],
    shortHosts: [],
    android: { package: 'org.telegram.messenger' },
    ios: { scheme: 'tg', appStoreId: '686449807' },
    contentTypes: ['profile', 'channel', 'post', 'invite', 'chat', 'stickers'],
  },
  ({ segs, url }) => {
    const [a, b, c] = segs;
    const n = segs.length;
    if (a === undefined) return null;
    if (a.startsWith('+') && n === 1) {
      // t.me/+<digits> is a phone number; t.me/+<hash> an invite.
      const rest = a.slice(1);
      if (/^\d{5,15}$/.test(rest)) return { type: 'chat', phone: rest };
      return SLUG.test(rest) ? { type: 'invite', invite: rest } : null;
    }
    if (a === 'joinchat' && b && SLUG.test(b) && n === 2) return { type: 'invite', invite: b };
    if (a === 's' && b && TG_NAME.test(b) && n === 2) return { type: 'channel', domain: b };
    if (a === 'c' && b && DIGITS.test(b) && c && DIGITS.test(c) && n === 3) {
      return { type: 'post', channel: b, post: c };
    }
    if (a === 'addstickers' && b && SLUG.test(b) && n === 2) return { type: 'stickers', set: b };
    if (TG_RESERVED.has(a.toLowerCase()) || !TG_NAME.test(a)) return null;
    if (n === 1) {
      const start = param(url, 'start');
      return start === null ? { type: 'profile', domain: a } : { type: 'profile', domain: a, start };
    }
    return n === 2 && b && DIGITS.test(b) ? { type: 'post', domain: a, post: b } : null;
  },
  ({ domain, post, start, invite, phone, channel, set }) => {
    if (domain)
      return `tg://resolve?${query([
        ['domain', domain],
        ['post', post],
        ['start', start],
      ])}`;
    if (invite) return `tg://join?${query([['invite', invite]])}`;
    if (phone) return `tg://resolve?phone=${phone}`;
    if (channel && post) return `tg://privatepost?channel=${channel}&post=${post}`;
    if (set) return `tg://addstickers?${query([['set', set]])}`;
    return null;
  },
);

export const discord: Platform = define(
  {
    key: 'discord',
    name: 'Discord',
    hosts: ['discord.com', 'discordapp.com'],
    shortHosts: ['discord.gg'],
    android: { package: 'com.discord' },
    ios: { scheme: 'discord', appStoreId: '985746746' },
    contentTypes: ['invite', 'channel', 'profile', 'event'],
  },
  ({ host, segs }) => {
    const [a, b] = segs;
    const n = segs.length;
    if (host === 'discord.gg') return n === 1 && a && SLUG.test(a) ? { type: 'invite' } : null;
    if (a === 'invite' && b && SLUG.test(b) && n === 2) return { type: 'invite' };
    if (a === 'channels' && b && n >= 2 && n <= 4 && segs.slice(2).every((s) => DIGITS.test(s))) {
      return b === '@me' || DIGITS.test(b) ? { type: 'channel' } : null;
    }
    if (a === 'users' && b && DIGITS.test(b) && n === 2) return { type: 'profile' };
    if (a === 'events' && n === 3 && segs.slice(1).every((s) => DIGITS.test(s))) return { type: 'event' };
    return null;
  },
  // discord:// paths are unverified; the universal link opens all of these.
  noIos,
);
