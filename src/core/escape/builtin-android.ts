import type { InAppKey } from '../visitor.js';
import { SOURCES } from './sources.js';
import type { EscapeCell } from './types.js';

type Source = { url: string; date: string };

function intent(
  inApp: InAppKey | null,
  attempt: EscapeCell['attempt'],
  source: Source,
  note?: string,
): EscapeCell {
  return {
    inApp,
    os: 'android',
    platform: '*',
    strategies: ['intent'],
    attempt,
    fallbackDelayMs: 2500,
    source: source.url,
    confirmed: source.date,
    ...(note ? { note } : {}),
  };
}

function menuOnly(inApp: InAppKey, source: Source, note: string): EscapeCell {
  return {
    inApp,
    os: 'android',
    platform: '*',
    strategies: ['instructions'],
    attempt: 'tap',
    fallbackDelayMs: 2500,
    hint: 'browser-menu',
    source: source.url,
    confirmed: source.date,
    note,
  };
}

const UNTESTED = 'No device test published: the generic Android WebView rule (the intent, one attempt).';
const CUSTOM_TABS =
  'Opens links in the default browser or a Custom Tab (a real browser) when not in its own WebView.';

/** Android: the intent everywhere a webview forwards it (reference 3.1, 3.6). */
export const ANDROID_CELLS: readonly EscapeCell[] = [
  intent(null, 'script', SOURCES.chromeIntents, 'Chrome, Samsung Internet, Custom Tabs.'),
  intent('instagram', 'script', SOURCES.debuggerAndroid),
  intent('facebook', 'script', SOURCES.debuggerAndroid),
  intent(
    'messenger',
    'tap',
    SOURCES.debuggerMetaIntent,
    'The intent was refused for a while in late 2024: a tap only.',
  ),
  intent(
    'threads',
    'tap',
    SOURCES.debuggerMetaIntent,
    'The intent was refused for a while in late 2024: a tap only.',
  ),
  {
    inApp: 'tiktok',
    os: 'android',
    platform: '*',
    strategies: ['intent', 'instructions'],
    attempt: 'tap',
    fallbackDelayMs: 3000,
    hint: 'browser-menu-if-stuck',
    source: SOURCES.debuggerAndroid.url,
    confirmed: SOURCES.debuggerAndroid.date,
    note: 'The intent is "not dependable": a tap, a longer wait, and the way out by hand beside it.',
  },
  intent('twitter', 'script', SOURCES.debuggerAndroid, CUSTOM_TABS),
  intent('linkedin', 'script', SOURCES.debuggerAndroid, CUSTOM_TABS),
  intent('snapchat', 'script', SOURCES.debuggerAndroid, CUSTOM_TABS),
  intent('gsa', 'script', SOURCES.debuggerAndroid, CUSTOM_TABS),
  intent('telegram', 'script', SOURCES.debuggerAndroid),
  intent('line', 'script', SOURCES.debuggerAndroid),
  menuOnly('wechat', SOURCES.debuggerAndroid, 'Blocks the intent and every other escape.'),
  menuOnly('weibo', SOURCES.callappLib, 'Blocks app launches from its webview.'),
  menuOnly('qq', SOURCES.callappLib, 'Blocks app launches from its webview.'),
  intent('whatsapp', 'script', SOURCES.genericWebview, UNTESTED),
  intent('pinterest', 'script', SOURCES.genericWebview, UNTESTED),
  intent('reddit', 'script', SOURCES.genericWebview, UNTESTED),
  intent('kakaotalk', 'script', SOURCES.genericWebview, UNTESTED),
  intent('naver', 'script', SOURCES.genericWebview, UNTESTED),
  intent('daum', 'script', SOURCES.genericWebview, UNTESTED),
  intent('zalo', 'script', SOURCES.genericWebview, UNTESTED),
  intent('baidu', 'script', SOURCES.genericWebview, UNTESTED),
  intent('other_webview', 'script', SOURCES.genericWebview, 'Any other WebView (`; wv)`).'),
];
