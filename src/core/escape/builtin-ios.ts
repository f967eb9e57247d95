import type { InAppKey } from '../visitor.js';
import { SOURCES } from './sources.js';
import type { EscapeCell } from './types.js';

type Source = { url: string; date: string };

function cell(
  inApp: InAppKey | null,
  shape: Pick<EscapeCell, 'strategies' | 'attempt'> & { hint?: EscapeCell['hint'] },
  source: Source,
  note: string,
): EscapeCell {
  return {
    inApp,
    os: 'ios',
    platform: '*',
    fallbackDelayMs: 2500,
    ...shape,
    source: source.url,
    confirmed: source.date,
    note,
  };
}

// A webview that forwards app schemes to iOS: the scheme (one attempt), else the bounce to Safari.
const FORWARDS = { strategies: ['scheme', 'x-safari'], attempt: 'script' } as const;
// A webview that forwards no app scheme: the bounce to Safari, on a tap.
const BOUNCE = { strategies: ['x-safari'], attempt: 'tap' } as const;
const FORWARDS_NOTE = 'WKWebView; other-browser schemes and x-safari both work.';
const UNTESTED = 'No device test published: the bounce to Safari, which needs nothing from the webview.';

/** iOS: a universal link in real browsers, the app scheme or the bounce to Safari in webviews (reference 3.1). */
export const IOS_CELLS: readonly EscapeCell[] = [
  cell(
    null,
    { strategies: ['universal'], attempt: 'tap' },
    SOURCES.appleUniversal,
    'Safari, Chrome iOS, SFSafariViewController (X, Slack, Discord, Gmail): a universal link fires on a tap only.',
  ),
  cell('instagram', FORWARDS, SOURCES.debuggerIos, FORWARDS_NOTE),
  cell('facebook', FORWARDS, SOURCES.debuggerIos, FORWARDS_NOTE),
  cell(
    'threads',
    FORWARDS,
    SOURCES.threadsIosWebview,
    "Meta's WKWebView (Barcelona … IABMV/1), like Instagram; not SFSafariViewController.",
  ),
  cell('linkedin', FORWARDS, SOURCES.debuggerIos, FORWARDS_NOTE),
  cell('line', FORWARDS, SOURCES.debuggerIos, FORWARDS_NOTE),
  cell(
    'telegram',
    FORWARDS,
    SOURCES.debuggerIos,
    `${FORWARDS_NOTE} Detected by UA only where Telegram says so.`,
  ),
  cell('gsa', FORWARDS, SOURCES.debuggerIos, FORWARDS_NOTE),
  cell('tiktok', BOUNCE, SOURCES.debuggerIos, 'x-safari works; app schemes are refused.'),
  cell('messenger', BOUNCE, SOURCES.debuggerIos, 'x-safari works; app schemes are refused.'),
  cell(
    'twitter',
    BOUNCE,
    SOURCES.debuggerIos,
    'Only the old "Twitter for iPhone" webview is detectable; X now uses SFSafariViewController.',
  ),
  cell(
    'snapchat',
    { strategies: ['instructions'], attempt: 'tap', hint: 'safari-menu' },
    SOURCES.debuggerIos,
    'x-safari and app schemes both fail.',
  ),
  cell(
    'wechat',
    { strategies: ['instructions'], attempt: 'tap', hint: 'browser-menu' },
    SOURCES.debuggerIos,
    'x-safari and app schemes both fail.',
  ),
  cell(
    'weibo',
    { strategies: ['instructions'], attempt: 'tap', hint: 'browser-menu' },
    SOURCES.callappLib,
    'Blocks app launches from its webview.',
  ),
  cell(
    'qq',
    { strategies: ['instructions'], attempt: 'tap', hint: 'browser-menu' },
    SOURCES.callappLib,
    'Blocks app launches from its webview.',
  ),
  cell('whatsapp', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('pinterest', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('reddit', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('kakaotalk', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('naver', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('daum', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('zalo', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('baidu', BOUNCE, SOURCES.debuggerIos, UNTESTED),
  cell('other_webview', BOUNCE, SOURCES.debuggerIos, `Any other WKWebView (no Safari/ token). ${UNTESTED}`),
];
