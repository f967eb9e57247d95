import type { InAppKey, Os } from './kinds.js';

/**
 * Link-preview fetchers (reference section 5). isbot already knows all of them; this list exists to set
 * `preview` (they unfurl a link for a person, unlike crawlers) and to keep catching them should isbot's
 * list ever drop one. Tokens are chosen so that no in-app browser UA contains them: `LinkedInBot` vs
 * `[LinkedInApp]`, `TelegramBot` vs `Telegram-Android/`, `kakaotalk-scrap` vs `KAKAOTALK 10.x`, the bare
 * `WhatsApp/2.x A` fetcher (anchored at the start) vs WhatsApp's `[WA4A/...]` webview.
 */
const PREVIEW =
  /facebookexternalhit|\bfacebot\b|facebookcatalog|meta-external(?:agent|fetcher)|twitterbot|linkedinbot|slackbot|slack-imgproxy|discordbot|telegrambot|^whatsapp\/|pinterestbot|pinterest\/0\.|snap url preview|skypeuripreview|redditbot|bluesky cardyb|\bmastodon\/|line-poker|kakaotalk-scrap|iframely|embedly|vkshare/i;

export function isPreviewFetcher(ua: string): boolean {
  return PREVIEW.test(ua);
}

// Windows Phone claimed to be both Android and an iPhone ("like iPhone OS"); TVs and consoles say Linux.
const NOT_A_PHONE_OR_DESKTOP =
  /Windows Phone|IEMobile|SMART-TV|SmartTV|Tizen|Web0S|webOS|PlayStation|Xbox|Nintendo/;
const IOS = /\b(?:iPhone|iPod|iPad)\b/;
const ANDROID = /\bAndroid\b/;
// iPadOS Safari sends a Mac UA by default: it is a desktop as far as the server can tell (reference 2.2).
const DESKTOP = /\b(?:Windows NT|Macintosh|X11|CrOS|Linux)\b/;

export function detectOs(ua: string): Os {
  if (NOT_A_PHONE_OR_DESKTOP.test(ua)) return 'other';
  if (IOS.test(ua)) return 'ios';
  if (ANDROID.test(ua)) return 'android';
  if (DESKTOP.test(ua)) return 'desktop';
  return 'other';
}

/*
 * The Meta family shares the FBAN / FB_IAB tokens. Explicit Messenger tokens first; then, as inapp-spy
 * does, a Meta token without `IABMV` is read as Messenger (current Facebook builds send `IABMV/1`, current
 * Messenger builds send `FB_IAB/FB4A` or `FBAN/FBIOS` without it). The heuristic errs on the safe side:
 * the Messenger plan (`x-safari` on iOS) also works inside Facebook, the reverse does not.
 */
const MESSENGER = /\bFBAN\/Messenger|\bFB_IAB\/(?:MESSENGER|Orca-Android)|\bMessengerLiteForiOS/i;
const META_TOKEN = /\b(?:FBAN|FB_IAB)\//;
const FACEBOOK_LITE = /\bFBAN\/EMA\b/;
const IABMV = /\bIABMV\//;
const FACEBOOK = /\bFBAV\/|\bMetaIAB\b|\bFacebook\b/;

function metaApp(ua: string): InAppKey | null {
  if (MESSENGER.test(ua)) return 'messenger';
  if (META_TOKEN.test(ua)) return FACEBOOK_LITE.test(ua) || IABMV.test(ua) ? 'facebook' : 'messenger';
  return FACEBOOK.test(ua) ? 'facebook' : null;
}

/**
 * App-specific tokens, checked in this order (reference 2.1, 2.2): Threads (`Barcelona`) before
 * Instagram, the Meta family (Messenger before Facebook) next, then the rest. The generic WebView
 * catch-alls run only after all of them, because Instagram, Facebook and TikTok builds now append
 * `Safari/604.1` and would otherwise slip through or be mislabelled.
 */
const THREADS = /\bBarcelona\b/;
const INSTAGRAM = /\bInstagram\b/;
const OTHER_APPS: ReadonlyArray<readonly [InAppKey, RegExp]> = [
  ['tiktok', /\bmusical_ly|\bBytedanceWebview\/|\btrill_\d|\bAppName\/(?:musical_ly|trill)\b|\bTikTok\b/],
  ['twitter', /\bTwitter for i(?:Phone|Pad)\b|\bTwitterAndroid\b/],
  ['linkedin', /\bLinkedInApp\b/],
  ['snapchat', /\bSnapchat\//],
  ['pinterest', /\bPinterest\/(?:iOS|Android)\b/],
  ['reddit', /\bReddit\//],
  ['line', /\bLine\/\d/],
  ['wechat', /\bMicroMessenger\//],
  ['whatsapp', /\b(?:WAiOS|WA4A)\/|\bWhatsApp\//],
  ['telegram', /\bTelegram-(?:Android|iOS)\//],
  ['gsa', /\bGSA\/\d|\bGoogleApp\//],
  ['kakaotalk', /\bKAKAOTALK\b/i],
  ['naver', /\bNAVER\(inapp\b/i],
  ['daum', /\bDaumApps\//],
  ['zalo', /\bZalo\/\d/],
  // Weibo packs its versions into `Weibo (<device>__weibo__<version>__...)`.
  ['weibo', /__weibo__|\bWeibo \(/],
  // QQ's webview says `QQ/<version>`; QQ Browser (a real browser) says `MQQBrowser/`, which this skips.
  // WeChat's Android UA also carries MQQBrowser and is matched above, before this row.
  ['qq', /(?:^|[\s;])QQ\/\d/],
  ['baidu', /\bbaiduboxapp\//],
];

const ANDROID_WEBVIEW = /; wv\)|\bWebView\b/;
const IOS_SAFARI_TOKEN = /\bSafari\//;

/**
 * Browsers of their own on iOS. All of them are WKWebView underneath, so the generic rule (no `Safari/`
 * token: a webview) would read them as an unnamed in-app browser, and some builds do drop the token:
 * Firefox for iOS 155 sends `... FxiOS/155.0 Mobile/15E148 Version/26.4`. Their own token says a
 * person chose that browser: it gets no escape page. Checked after every app's token, so an app that
 * embeds one of these names is still that app.
 */
export const IOS_BROWSERS: ReadonlyArray<{ name: string; token: RegExp; source: string; added: string }> = [
  {
    name: 'Firefox for iOS (and Firefox Focus)',
    token: /\bFxiOS\/\d/,
    source: 'https://searchfox.org/mozilla-mobile/source/firefox-ios/firefox-ios/Shared/UserAgent.swift',
    added: '2026-11-28',
  },
  {
    name: 'Chrome for iOS',
    token: /\bCriOS\/\d/,
    source: 'https://developer.chrome.com/docs/multidevice/user-agent#chrome_for_ios',
    added: '2026-11-28',
  },
  {
    name: 'Edge for iOS',
    token: /\bEdgiOS\/\d/,
    source: 'https://learn.microsoft.com/en-us/microsoft-edge/web-platform/user-agent-string',
    added: '2026-11-28',
  },
  {
    name: 'Opera Touch, Opera Mini for iOS',
    token: /\b(?:OPT|OPiOS)\/\d/,
    source: 'https://github.com/ua-parser/uap-core/blob/master/regexes.yaml',
    added: '2026-11-28',
  },
  {
    name: 'Yandex Browser for iOS',
    token: /\bYaBrowser\/\d/,
    source: 'https://github.com/ua-parser/uap-core/blob/master/regexes.yaml',
    added: '2026-11-28',
  },
  {
    name: 'DuckDuckGo for iOS',
    token: /\bDuckDuckGo\/\d/,
    source: 'https://github.com/ua-parser/uap-core/blob/master/regexes.yaml',
    added: '2026-11-28',
  },
];

function isIosBrowser(ua: string): boolean {
  for (const browser of IOS_BROWSERS) if (browser.token.test(ua)) return true;
  return false;
}

/**
 * Automated fetchers isbot 5.2 does not know, found by running the classifier over crawler-user-agents
 * (test/core/visitor-corpora.test.ts). Page-speed testers and screenshot services: they load a link for a
 * report, not for a person, so they get the redirect and are not counted as clicks.
 */
export const EXTRA_BOTS: ReadonlyArray<{ name: string; token: RegExp; source: string; added: string }> = [
  { name: 'GTmetrix', token: /\bGTmetrix\b/, source: 'https://gtmetrix.com/', added: '2026-11-28' },
  {
    name: 'Yellow Lab Tools',
    token: /\bYLT Chrome\//,
    source: 'https://yellowlab.tools/',
    added: '2026-11-28',
  },
  {
    name: 'Miniature.io (thumbnails)',
    token: /\bMiniature\.io\//,
    source: 'https://miniature.io/',
    added: '2026-11-28',
  },
  {
    name: 'TuringOS content crawler',
    token: /\bTSM-turingos\b/,
    source: 'https://knownagents.com/agents/turingos',
    added: '2026-11-28',
  },
];

export function isExtraBot(ua: string): boolean {
  for (const bot of EXTRA_BOTS) if (bot.token.test(ua)) return true;
  return false;
}

export function detectInApp(ua: string, os: Os): InAppKey | null {
  if (THREADS.test(ua)) return 'threads';
  if (INSTAGRAM.test(ua)) return 'instagram';
  const meta = metaApp(ua);
  if (meta !== null) return meta;
  for (const [key, pattern] of OTHER_APPS) if (pattern.test(ua)) return key;
  // Generic markers: an Android WebView says `; wv)`; an iOS WKWebView has no `Safari/` token (unless it
  // is one of the iOS browsers above).
  if (os === 'android' && ANDROID_WEBVIEW.test(ua)) return 'other_webview';
  if (os === 'ios' && !IOS_SAFARI_TOKEN.test(ua) && !isIosBrowser(ua)) return 'other_webview';
  return null;
}
