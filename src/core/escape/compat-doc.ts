import { IN_APP_KEYS, type InAppKey } from '../visitor.js';
import { SOURCES } from './sources.js';
import { type CellOs, ESCAPE_STRATEGIES, type EscapeCell, type EscapeMatrix } from './types.js';

/**
 * docs/compatibility.md, rendered from the escape matrix: a table per OS, one row per in-app browser, a
 * column per strategy (its rank in the cell's order), then attempt, delay, source and date. `npm run
 * docs:compat` writes it; a test fails when the committed file differs.
 */

const NAMES: Readonly<Record<InAppKey, string>> = {
  instagram: 'Instagram',
  facebook: 'Facebook',
  messenger: 'Messenger',
  threads: 'Threads',
  tiktok: 'TikTok',
  twitter: 'X (Twitter)',
  linkedin: 'LinkedIn',
  snapchat: 'Snapchat',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  telegram: 'Telegram',
  line: 'LINE',
  wechat: 'WeChat',
  whatsapp: 'WhatsApp',
  gsa: 'Google app',
  kakaotalk: 'KakaoTalk',
  naver: 'Naver',
  daum: 'Daum',
  zalo: 'Zalo',
  weibo: 'Weibo',
  qq: 'QQ',
  baidu: 'Baidu',
  other_webview: 'Any other webview',
};

const OS_TITLES: Readonly<Record<CellOs, string>> = { ios: 'iOS', android: 'Android' };

function nameOf(inApp: InAppKey | null): string {
  return inApp === null ? 'Browser (Safari, Chrome, SFSafariViewController, Custom Tabs)' : NAMES[inApp];
}

function cellText(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function tableRow(cell: EscapeCell): string {
  const rank = ESCAPE_STRATEGIES.map((strategy) => {
    const at = cell.strategies.indexOf(strategy);
    return at === -1 ? '' : String(at + 1);
  });
  const platform = cell.platform === '*' ? '' : ` (${cell.platform})`;
  const delay = `${cell.fallbackDelayMs} ms`;
  const source = `[source](${cell.source})`;
  return `| ${nameOf(cell.inApp)}${platform} | ${rank.join(' | ')} | ${cell.attempt} | ${delay} | ${cell.hint ?? ''} | ${source} | ${cell.confirmed} | ${cellText(cell.note ?? '')} |`;
}

function order(cell: EscapeCell): number {
  return cell.inApp === null ? -1 : IN_APP_KEYS.indexOf(cell.inApp);
}

function table(matrix: EscapeMatrix, os: CellOs): string[] {
  const rows = matrix.rows
    .filter((cell) => cell.os === os)
    .sort((a, b) => order(a) - order(b) || a.platform.localeCompare(b.platform));
  return [
    `## ${OS_TITLES[os]}`,
    '',
    `| In-app browser | ${ESCAPE_STRATEGIES.join(' | ')} | attempt | delay | hint | source | confirmed | note |`,
    `|---|${ESCAPE_STRATEGIES.map(() => ':-:').join('|')}|---|---|---|---|---|---|`,
    ...rows.map(tableRow),
    '',
  ];
}

export function renderCompatibilityDoc(matrix: EscapeMatrix): string {
  return [
    '# Escape compatibility',
    '',
    '<!-- Generated from src/core/escape by `npm run docs:compat`; do not edit by hand. -->',
    '',
    'How an escape page hands a visitor over to the native app, per in-app browser and OS. A number is',
    "the strategy's rank in the cell: the page uses the first one the destination allows (an intent needs",
    'an Android app, a scheme an iOS URL scheme). `script`: one automatic attempt ~400 ms after load;',
    '`tap`: the hand-off waits for a tap. After an attempt, a page still visible after the delay continues',
    'to the website. Operators can replace or add cells with `ESCAPE_MATRIX_FILE` (see [configuration.md](configuration.md)).',
    '',
    '- **intent**: Android `intent://` URL with the app package and a browser fallback.',
    "- **scheme**: the app's URL scheme (iOS webviews that forward schemes to the OS).",
    '- **universal**: the https destination, tapped in Safari (universal link).',
    '- **x-safari**: `x-safari-https://` bounce of the link itself (with `esc=1`) to Safari.',
    '- **instructions**: no button; the hint tells how to open the page in a browser.',
    '- **none**: only the "Continue to website" link.',
    '',
    ...table(matrix, 'ios'),
    ...table(matrix, 'android'),
    '## Apps that open links in a real browser',
    '',
    'Slack, Discord, Gmail, YouTube and X (iOS by default) open links in SFSafariViewController on iOS and',
    "in the default browser or a Custom Tab on Android. They send the browser's own user agent, so they get",
    `the browser row, where universal links and intents behave as in Safari and Chrome ([source](${SOURCES.debuggerIos.url})).`,
    '',
  ].join('\n');
}
