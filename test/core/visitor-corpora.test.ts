import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXTRA_BOTS, IOS_BROWSERS } from '../../src/core/visitor/tokens.js';
import { classifyVisitor, type Os } from '../../src/core/visitor.js';

/**
 * The visitor classifier over two public corpora (dev dependencies, data only):
 * - `user-agents`: 10,000 user agents weighted by real traffic (desktop, phone, tablet), all of them people;
 * - `crawler-user-agents`: crawler patterns, each with real instances, all of them machines.
 * The families below are written here, independently of src/core/visitor, so a classifier change that
 * turns a real browser into an in-app browser (escape page) or a person into a bot fails by name.
 */

const require = createRequire(import.meta.url);

interface WeightedAgent {
  userAgent: string;
  deviceCategory: 'desktop' | 'mobile' | 'tablet';
}
interface CrawlerEntry {
  pattern: string;
  instances: string[];
  description?: string;
}

const AGENTS: WeightedAgent[] = JSON.parse(
  readFileSync(join(dirname(require.resolve('user-agents')), 'user-agents.json'), 'utf8'),
);
const CRAWLERS: CrawlerEntry[] = require('crawler-user-agents');

/** Real browsers, by the token each vendor puts in its user agent. Most specific first. */
const BROWSER_FAMILIES: readonly (readonly [string, RegExp])[] = [
  ['Firefox for iOS', /\bFxiOS\/\d/],
  ['Chrome for iOS', /\bCriOS\/\d/],
  ['Edge for iOS', /\bEdgiOS\/\d/],
  ['Opera for iOS', /\b(?:OPiOS|OPT)\/\d/],
  ['Samsung Internet', /\bSamsungBrowser\/\d/],
  ['Edge (desktop, Android)', /\bEdgA?\/\d/],
  ['Opera (desktop, Android)', /\bOPR\/\d/],
  ['Yandex Browser', /\bYaBrowser\/\d/],
  ['DuckDuckGo', /\bDuckDuckGo\/\d/],
  ['Firefox (desktop, Android)', /\bFirefox\/\d/],
  // Chrome, Chromium, and browsers that send Chrome's UA as is (Brave, Vivaldi): not an Android WebView.
  ['Chrome', /\bChrome\/\d[\d.]* (?:Mobile )?Safari\/\d/],
  // Safari: `Version/` and `Safari/`, on a Mac or an iPhone/iPad (iOS builds also carry `Mobile/`).
  ['Safari', /\bVersion\/\d[\d.]* (?:Mobile\/\w+ )?Safari\/\d/],
];

/** In-app browsers (an app's webview): the escape page is for them. Token → the classifier's key. */
const IN_APP_SIGNS: readonly (readonly [RegExp, string])[] = [
  [/\bGSA\/\d/, 'gsa'],
  [/\bBarcelona\b/, 'threads'],
  [/\bInstagram\b/, 'instagram'],
  [/\bSnapchat\//, 'snapchat'],
  [/\b(?:FBAN|FBAV)\/|\bMetaIAB\b/, 'facebook|messenger'],
  [/; wv\)/, 'any'],
];

/** User agents of the corpus that fit no family above, each with what it is. */
const NAMED_ODDITIES: Record<string, { inApp: string; why: string }> = {
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148':
    {
      inApp: 'other_webview',
      why: "WKWebView's default user agent: no browser token, no Safari/ token, an app's webview",
    },
};

function osOfPlatform(ua: string): Os {
  if (/\b(?:iPhone|iPad|iPod)\b/.test(ua)) return 'ios';
  if (/\bAndroid\b/.test(ua)) return 'android';
  return 'desktop';
}

describe('the visitor classifier over user-agents (real traffic, all people)', () => {
  const unique = [...new Set(AGENTS.map((agent) => agent.userAgent))];

  it('has the whole corpus (10,000 weighted user agents)', () => {
    expect(AGENTS.length).toBeGreaterThanOrEqual(10_000);
    expect(unique.length).toBeGreaterThan(500);
  });

  it('calls no person a bot, and reads phones, tablets and desktops as what they are', () => {
    const wrong: string[] = [];
    for (const { userAgent, deviceCategory } of AGENTS) {
      const visitor = classifyVisitor(userAgent);
      if (visitor.bot) wrong.push(`bot: ${userAgent}`);
      else if (visitor.os !== osOfPlatform(userAgent)) wrong.push(`os ${visitor.os}: ${userAgent}`);
      // Tablets are phones here (an app can open on them): mobile is iOS or Android, whatever the size.
      else if (deviceCategory !== 'tablet' && visitor.mobile !== (deviceCategory === 'mobile'))
        wrong.push(`mobile ${visitor.mobile} for a ${deviceCategory}: ${userAgent}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives every real browser the browser reading (no escape page), and every webview an in-app one', () => {
    const families = new Map<string, number>();
    const wrong: string[] = [];
    for (const ua of unique) {
      const visitor = classifyVisitor(ua);
      const sign = IN_APP_SIGNS.find(([pattern]) => pattern.test(ua));
      const oddity = NAMED_ODDITIES[ua];
      if (sign || oddity) {
        const want = sign ? sign[1] : (oddity?.inApp as string);
        const ok = want === 'any' ? visitor.inApp !== null : want.split('|').includes(String(visitor.inApp));
        if (!ok) wrong.push(`in-app ${want} read as ${visitor.inApp}: ${ua}`);
        families.set(`in-app: ${want}`, (families.get(`in-app: ${want}`) ?? 0) + 1);
        continue;
      }
      const family = BROWSER_FAMILIES.find(([, pattern]) => pattern.test(ua))?.[0];
      if (!family) {
        wrong.push(`no family (name it in NAMED_ODDITIES or BROWSER_FAMILIES): ${ua}`);
        continue;
      }
      families.set(family, (families.get(family) ?? 0) + 1);
      if (visitor.inApp !== null || visitor.bot)
        wrong.push(`${family} read as ${visitor.inApp ?? 'bot'}: ${ua}`);
    }
    expect(wrong).toEqual([]);
    // The corpus does hold the families the issue names (so the loop above did test them).
    for (const family of [
      'Firefox for iOS',
      'Chrome for iOS',
      'Edge for iOS',
      'Samsung Internet',
      'Safari',
      'Chrome',
    ])
      expect(families.get(family), family).toBeGreaterThan(0);
    expect(families.get('Firefox (desktop, Android)')).toBeGreaterThan(0);
    expect(families.get('Edge (desktop, Android)')).toBeGreaterThan(0);
  });

  it('reads Firefox for iOS without a Safari/ token as a browser (issue #32, 9)', () => {
    const withoutSafari = unique.filter((ua) => /FxiOS\//.test(ua) && !/Safari\//.test(ua));
    expect(withoutSafari.length).toBeGreaterThan(0);
    const reported = [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/155.0 Mobile/15E148 Version/26.4',
      'Mozilla/5.0 (iPad; CPU OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/155.0 Mobile/15E148 Version/26.4',
      ...withoutSafari,
    ];
    for (const ua of reported)
      expect(classifyVisitor(ua), ua).toMatchObject({ os: 'ios', mobile: true, inApp: null, bot: false });
  });

  it('knows each iOS browser of its table without a Safari/ token, and still reads a bare WKWebView as one', () => {
    const base =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 26_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)';
    const examples: Record<string, string> = {
      'Firefox for iOS (and Firefox Focus)': 'FxiOS/146.0 Mobile/15E148',
      'Chrome for iOS': 'CriOS/142.0.7444.148 Mobile/15E148',
      'Edge for iOS': 'EdgiOS/142.0.3595.80 Mobile/15E148',
      'Opera Touch, Opera Mini for iOS': 'OPT/5.3.2 Mobile/15E148',
      'Yandex Browser for iOS': 'YaBrowser/25.10.7.530.10 Mobile/15E148',
      'DuckDuckGo for iOS': 'Mobile/15E148 DuckDuckGo/7',
    };
    expect(Object.keys(examples).sort()).toEqual(IOS_BROWSERS.map((b) => b.name).sort());
    for (const browser of IOS_BROWSERS) {
      expect(browser.source).toMatch(/^https:\/\//);
      expect(browser.added).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const ua = `${base} ${examples[browser.name]}`;
      expect(classifyVisitor(ua), ua).toMatchObject({ os: 'ios', inApp: null, bot: false });
    }
    expect(classifyVisitor(`${base} Mobile/15E148`).inApp).toBe('other_webview');
    // An app's token still wins over a browser token it happens to carry.
    expect(classifyVisitor(`${base} CriOS/142.0 Mobile/15E148 Instagram 400.0.0.1`).inApp).toBe('instagram');
  });
});

/**
 * Crawler instances the classifier reads as people, on purpose. Each is a user agent a person's browser
 * sends too, so calling it a bot would take the escape page (or the click count) from real people.
 */
const NOT_A_BOT_HERE: Record<string, string> = {
  'AP3A\\.240617\\.008':
    "a real Instagram for Android in-app user agent (one OPPO build); 80legs copies it: a bot reading would take Instagram's escape page from every person on that build",
  'MetaIAB Facebook':
    "Facebook's in-app browser user agent (test/core/ua-corpus.ts: 'Facebook iOS new (MetaIAB)'); listed as Meta's preview fetcher, but people tap links with it",
  'Code\\/1\\.':
    "VS Code's Electron user agent: the same for a person in its built-in browser and for the Copilot agent; a desktop visit gets the plain redirect either way",
  'Trae\\/':
    'Trae (an Electron editor): same user agent for the person and the agent; a desktop visit gets the plain redirect either way',
  Fluid: 'a site-specific browser for macOS that a person runs (Fluid.app): a browser, not a fetcher',
};

describe('the visitor classifier over crawler-user-agents (all machines)', () => {
  it('reads every crawler instance as a bot, but the few listed with a reason', () => {
    let instances = 0;
    const missed = new Map<string, string[]>();
    for (const crawler of CRAWLERS) {
      for (const ua of crawler.instances) {
        instances++;
        const visitor = classifyVisitor(ua);
        if (visitor.bot) {
          expect(visitor).toMatchObject({ mobile: false, inApp: null });
          continue;
        }
        missed.set(crawler.pattern, [...(missed.get(crawler.pattern) ?? []), ua]);
      }
    }
    expect(instances).toBeGreaterThan(2000);
    const unexplained = [...missed.keys()].filter((pattern) => !(pattern in NOT_A_BOT_HERE));
    expect(unexplained.map((pattern) => `${pattern}: ${missed.get(pattern)?.join(' | ')}`)).toEqual([]);
    // No stale excuse: every listed pattern is still in the corpus and still read as a person.
    expect(Object.keys(NOT_A_BOT_HERE).filter((pattern) => !missed.has(pattern))).toEqual([]);
    const missedInstances = [...missed.values()].reduce((sum, list) => sum + list.length, 0);
    expect(missedInstances).toBeLessThanOrEqual(Object.keys(NOT_A_BOT_HERE).length * 2);
  });

  it('reads the fetchers isbot misses (EXTRA_BOTS) as bots, each from its crawler-user-agents instance', () => {
    for (const bot of EXTRA_BOTS) {
      const instance = CRAWLERS.flatMap((crawler) => crawler.instances).find((ua) => bot.token.test(ua));
      expect(instance, bot.name).toBeDefined();
      expect(classifyVisitor(instance).bot, bot.name).toBe(true);
    }
  });
});
