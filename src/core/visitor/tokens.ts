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

export function detectInApp(ua: string, os: Os): InAppKey | null {
  if (THREADS.test(ua)) return 'threads';
  if (INSTAGRAM.test(ua)) return 'instagram';
  const meta = metaApp(ua);
  if (meta !== null) return meta;
  for (const [key, pattern] of OTHER_APPS) if (pattern.test(ua)) return key;
  // Generic markers: an Android WebView says `; wv)`; an iOS WKWebView has no `Safari/` token.
  if (os === 'android' && ANDROID_WEBVIEW.test(ua)) return 'other_webview';
  if (os === 'ios' && !IOS_SAFARI_TOKEN.test(ua)) return 'other_webview';
  return null;
}
