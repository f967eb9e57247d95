import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  compileEscapePage,
  ESCAPE_SCRIPT,
  type EscapePageInput,
  escapePageCsp,
  planEscape,
  renderEscapePage,
  renderNotFoundPage,
  safeHref,
} from '../../src/core/pages/index.js';
import type { AppTarget } from '../../src/core/platforms/index.js';
import type { InAppKey, Os, Visitor } from '../../src/core/visitor.js';

const NONCE = 'rAnd0mN0nce+/base64AA==';
const TAP = { token: 'tap.v1.abc-DEF_123', reportUrl: '/api/public/tap' };

function targetFor(web: string, name = 'YouTube'): AppTarget {
  const rest = web.replace(/^https:\/\//, '');
  return {
    platformKey: 'youtube',
    platformName: name,
    contentType: 'video',
    web,
    ios: `youtube://${rest}`,
    iosUniversal: web,
    android: `intent://${rest}#Intent;scheme=https;package=com.google.android.youtube;S.browser_fallback_url=${encodeURIComponent(web)};end`,
    androidPackage: 'com.google.android.youtube',
    appStoreId: '544007664',
  };
}

function visitor(os: Os, inApp: InAppKey | null): Visitor {
  return { os, mobile: true, inApp, bot: false, preview: false, prefetch: false };
}

function page(target: AppTarget, who: Visitor, extra: Partial<EscapePageInput> = {}): string {
  return renderEscapePage({ target, plan: planEscape(target, who), nonce: NONCE, tap: TAP, ...extra });
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&#8232;/g, '\u2028')
    .replace(/&#8233;/g, '\u2029')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

interface Parsed {
  tags: string[];
  attrs: Map<string, Record<string, string>>;
  config: Record<string, unknown>;
  script: string;
  configText: string;
}

/** A strict reading of the page: any markup injected through a value makes it fail or show up. */
function parse(html: string): Parsed {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  const outside = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '<script></script>');
  const tags: string[] = [];
  const attrs = new Map<string, Record<string, string>>();
  const tagPattern = /<(\/?)([a-zA-Z][a-zA-Z0-9]*|!doctype)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/gy;
  let rest = outside;
  for (let index = rest.indexOf('<'); index !== -1; index = rest.indexOf('<')) {
    tagPattern.lastIndex = index;
    const m = tagPattern.exec(rest);
    if (m === null) throw new Error(`unexpected markup: ${rest.slice(index, index + 60)}`);
    if (m[1] === '') {
      tags.push(m[2] ?? '');
      const record: Record<string, string> = {};
      for (const a of (m[3] ?? '').matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g))
        record[a[1] ?? ''] = decode(a[2] ?? '');
      if (record.id) attrs.set(record.id, record);
      else attrs.set(`${m[2]}#${tags.length}`, record);
    }
    rest = rest.slice(index + m[0].length);
  }
  const json = scripts.find((s) => s[1]?.includes('application/json'));
  const exec = scripts.find((s) => !s[1]?.includes('application/json'));
  const configText = json?.[2] ?? '';
  return { tags, attrs, config: JSON.parse(configText), script: exec?.[2] ?? '', configText };
}

const HOSTILE = [
  'https://www.youtube.com/watch?v="onmouseover="alert(1)',
  "https://www.youtube.com/watch?v=x'onerror='alert(1)",
  'https://www.youtube.com/watch?v=</script><script>alert(1)</script>',
  'https://www.youtube.com/watch?v="><img src=x onerror=alert(1)>',
  'https://www.youtube.com/watch?v=<!--<script>',
  'https://www.youtube.com/watch?v=a\u2028b\u2029c',
  'https://www.youtube.com/watch?v=`$' + '{alert(1)}`',
  'https://www.youtube.com/watch?v=&amp;&lt;&#39;',
  `https://www.youtube.com/watch?v=${'a'.repeat(3950)}"</script>`,
];

const CASES: [string, Visitor][] = [
  ['Android Instagram', visitor('android', 'instagram')],
  ['Android TikTok', visitor('android', 'tiktok')],
  ['iOS Safari', visitor('ios', null)],
  ['iOS Instagram', visitor('ios', 'instagram')],
  ['iOS TikTok', visitor('ios', 'tiktok')],
  ['iOS WeChat', visitor('ios', 'wechat')],
];

describe('renderEscapePage: structure and escaping', () => {
  it.each(HOSTILE.flatMap((web) => CASES.map(([name, who]) => [name, web.slice(0, 70), web, who] as const)))(
    '%s, destination %s',
    (_name, _short, web, who) => {
      const target = targetFor(web, `You"Tube<b>'&`);
      const plan = planEscape(target, who);
      const html = page(target, who, { branded: true });
      expect(html.match(/<script/gi)).toHaveLength(2);
      const parsed = parse(html);
      // Exactly the markup we write; nothing a value could have added.
      const expected = ['!doctype', 'html', 'head', 'meta', 'meta', 'meta', 'meta', 'title', 'style', 'body'];
      expected.push('main', 'h1', ...(plan.primary ? ['a'] : []), ...(plan.instructions ? ['p'] : []), 'a');
      expected.push('footer', 'a', 'script', 'script');
      expect(parsed.tags).toEqual(expected);
      expect(parsed.attrs.get('lh-web')?.href).toBe(web);
      if (plan.primary) expect(parsed.attrs.get('lh-open')?.href).toBe(safeHref(plan.primary.href));
      expect(html).toContain('<h1>You&quot;Tube&lt;b&gt;&#39;&amp;</h1>');
      // The executable script is the constant; values only travel in the JSON block.
      expect(parsed.script).toBe(ESCAPE_SCRIPT);
      expect(parsed.configText).not.toMatch(/[<>\u2028\u2029]/);
      expect(parsed.config).toEqual({
        kind: plan.primary?.kind ?? null,
        auto: plan.autoAttempt,
        delay: plan.fallbackDelayMs,
        token: TAP.token,
        report: TAP.reportUrl,
      });
      // The destination travels in the links only, never a third time in the config.
      expect(parsed.configText).not.toContain('youtube.com');
      expect(html).not.toMatch(/<img|<script>alert|onerror=alert\(1\)>|[\u2028\u2029]/);
      // Every nonce on the page is the response's nonce.
      const nonces = [...html.matchAll(/nonce="([^"]*)"/g)].map((m) => m[1]);
      expect(nonces).toEqual([NONCE, NONCE, NONCE]);
      expect(html).toMatch(new RegExp(`<style nonce="${NONCE.replace(/[+/]/g, '\\$&')}">`));
    },
  );

  it('refuses an unsafe primary href instead of rendering it', () => {
    const target = { ...targetFor('https://www.youtube.com/watch?v=1'), ios: 'javascript:alert(1)' };
    const html = page(target, visitor('ios', 'instagram'));
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('id="lh-open"');
    expect(parse(html).config.auto).toBe(false);
  });

  it('carries the tap meta only with a tap, and the engine page has no beacon URL', () => {
    const target = targetFor('https://www.youtube.com/watch?v=1');
    const hosted = page(target, visitor('android', null));
    expect(hosted).toContain(`<meta name="linkhop-tap" content="${TAP.token}">`);
    for (const tap of [null, undefined]) {
      const engine = page(target, visitor('android', null), { tap });
      expect(engine).not.toContain('linkhop-tap');
      expect(engine).not.toContain(TAP.reportUrl);
      expect(engine).not.toContain(TAP.token);
      expect(parse(engine).config).toMatchObject({ token: null, report: null });
    }
  });

  it('shows the platform, the big button, the web link, instructions and the optional mark', () => {
    const target = targetFor('https://www.youtube.com/watch?v=1');
    const android = page(target, visitor('android', null));
    expect(android).toContain('>Open in YouTube</a>');
    expect(android).toContain('>Continue to website</a>');
    expect(android).toContain('<meta name="robots" content="noindex">');
    expect(android).toContain('<meta name="viewport"');
    expect(android).not.toContain('github.com/linkhop');
    expect(page(target, visitor('android', null), { branded: true })).toContain(
      '<a id="lh-brand" href="https://github.com/linkhop/linkhop" rel="noreferrer">linkhop</a>',
    );
    const wechat = page(target, visitor('ios', 'wechat'));
    expect(wechat).toContain('tap ⋯ at the top right, then “Open in browser”');
    expect(wechat).not.toContain('id="lh-open"');
    expect(page(target, visitor('ios', 'tiktok'))).toContain('>Open in Safari</a>');
    expect(page(target, visitor('ios', 'instagram'), { lang: 'pt-BR' })).toContain('<html lang="pt-BR">');
    expect(page(target, visitor('ios', 'instagram'), { lang: '"><x' })).toContain('<html lang="en">');
  });

  it('has no external assets', () => {
    const html = page(targetFor('https://www.youtube.com/watch?v=1'), visitor('ios', 'instagram'), {
      branded: true,
    });
    expect(html).not.toMatch(/<link|<img|src=|@import|url\(/i);
  });

  it('compileEscapePage precomputes everything but the nonce', () => {
    const target = targetFor('https://www.youtube.com/watch?v=1');
    const plan = planEscape(target, visitor('android', null));
    const render = compileEscapePage({ target, plan, tap: { reportUrl: TAP.reportUrl } });
    expect(render(NONCE, TAP.token)).toBe(renderEscapePage({ target, plan, tap: TAP, nonce: NONCE }));
    expect(render('AnotherNonce123', TAP.token)).toContain('nonce="AnotherNonce123"');
    expect(() => render('bad"nonce', TAP.token)).toThrow(TypeError);
    // Each visit splices its own tap token into the meta tag and the config, nowhere else.
    const page = render(NONCE, 'abc.DEF-123_x');
    expect(page).toContain('<meta name="linkhop-tap" content="abc.DEF-123_x">');
    const configText =
      /<script type="application\/json" id="lh-config"[^>]*>([^<]*)<\/script>/.exec(page)?.[1] ?? '';
    expect(JSON.parse(configText).token).toBe('abc.DEF-123_x');
    expect(() => render(NONCE, 'bad"token')).toThrow(TypeError);
    expect(() => render(NONCE)).toThrow(TypeError);
    // Compiled without a report URL (the engine), a page never carries a token.
    expect(compileEscapePage({ target, plan })(NONCE, 'abc.def')).not.toContain('linkhop-tap');
  });
});

describe('page size', () => {
  const typical = targetFor('https://www.youtube.com/watch?v=dQw4w9WgXcQ&si=Tx7e1Lg0cIYh9Q2s');
  // An Amazon product link with its affiliate tag and the tracking a real share carries (~1,500 chars).
  const longWeb = `https://www.amazon.com/Sony-WH-1000XM5-Canceling-Headphones-Hands-Free/dp/B09XS7JWHH/ref=sr_1_1?crid=2Q7ZJ3K8YB1XK&dib=${'eyJ2IjoiMSJ9.Zk9xQ1'.repeat(60)}&dib_tag=se&keywords=sony+headphones&qid=1731234567&sprefix=sony+head%2Caps%2C180&sr=8-1&th=1&tag=creator-20&linkCode=ll1&linkId=0123456789abcdef0123456789abcdef&language=en_US&ref_=as_li_ss_tl`;
  const long = targetFor(longWeb, 'Amazon');
  const all: Visitor[] = CASES.map(([, who]) => who);

  it('is under 10 KB for a typical and the longest realistic destination, in every variant', () => {
    expect(longWeb.length).toBeGreaterThan(1400);
    for (const who of all) {
      for (const target of [typical, long]) {
        const bytes = Buffer.byteLength(page(target, who, { branded: true }));
        expect(bytes).toBeLessThan(10 * 1024);
      }
    }
  });
});

describe('escapePageCsp', () => {
  it('is strict and nonce-based', () => {
    expect(escapePageCsp(NONCE)).toBe(
      `default-src 'none'; script-src 'nonce-${NONCE}'; style-src 'nonce-${NONCE}'; img-src data:; ` +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(() => escapePageCsp("x'; script-src *")).toThrow(TypeError);
  });
});

describe('renderNotFoundPage', () => {
  it('is a small self-contained noindex page', () => {
    const html = renderNotFoundPage();
    expect(html).toContain("This link doesn't exist");
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).not.toMatch(/<script|<link|<img|src=/i);
    expect(Buffer.byteLength(html)).toBeLessThan(2048);
  });
});

/**
 * Runs the page's own inline script in node:vm against a minimal fake browser: a document with the
 * page's elements (their hrefs and the config text taken from the rendered HTML), visibility, events,
 * a controllable clock and timers, location, sendBeacon and fetch.
 */
function browse(html: string, options: { search?: string; navigation?: string; beacon?: boolean } = {}) {
  const parsed = parse(html);
  let now = 1_700_000_000_000;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let nextTimer = 1;
  const navigations: string[] = [];
  const reports: { via: string; url: string; body: unknown; init?: unknown }[] = [];
  const listeners = new Map<string, ((event: unknown) => void)[]>();
  const on = (scope: string) => (type: string, fn: (event: unknown) => void) =>
    listeners.set(`${scope}:${type}`, [...(listeners.get(`${scope}:${type}`) ?? []), fn]);
  const fire = (key: string, event: unknown = {}) => {
    for (const fn of listeners.get(key) ?? []) fn(event);
  };
  const element = (id: string) => {
    if (id === 'lh-config') return { textContent: parsed.configText };
    const attrs = parsed.attrs.get(id);
    if (attrs === undefined) return null;
    return { getAttribute: (name: string) => attrs[name] ?? null, addEventListener: on(id) };
  };
  const document = { visibilityState: 'visible', getElementById: element, addEventListener: on('document') };
  const navigator = {
    sendBeacon:
      options.beacon === false
        ? undefined
        : (url: string, body: unknown) => {
            // A string body is sent as text/plain: no CORS preflight.
            if (typeof body !== 'string') throw new TypeError('beacon body must be a string');
            return reports.push({ via: 'beacon', url, body: JSON.parse(body) }) > 0;
          },
  };
  const window = {
    location: {
      search: options.search ?? '',
      set href(value: string) {
        navigations.push(value);
      },
    },
    navigator,
    performance: { getEntriesByType: () => [{ type: options.navigation ?? 'navigate' }] },
    fetch: (url: string, init: { body: string }) => {
      reports.push({ via: 'fetch', url, body: JSON.parse(init.body), init });
      return Promise.resolve();
    },
    addEventListener: on('window'),
  };
  const context = vm.createContext({
    window,
    document,
    Date: { now: () => now },
    setTimeout: (fn: () => void, ms: number) => {
      timers.set(nextTimer, { at: now + ms, fn });
      return nextTimer++;
    },
    clearTimeout: (id: number) => timers.delete(id),
  });
  vm.runInContext(parsed.script, context);
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((x, y) => x[1].at - y[1].at)[0];
      if (due === undefined) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return {
    navigations,
    outcomes: () => reports.map((r) => (r.body as { outcome: string }).outcome),
    reports,
    advance,
    hide: () => {
      document.visibilityState = 'hidden';
      fire('document:visibilitychange');
    },
    show: () => {
      document.visibilityState = 'visible';
      fire('document:visibilitychange');
    },
    pagehide: () => fire('window:pagehide', { persisted: false }),
    pageshow: (persisted: boolean) => fire('window:pageshow', { persisted }),
    click: (id: string) => {
      fire(`${id}:click`);
      const href = parsed.attrs.get(id)?.href;
      if (href && id !== 'lh-open') navigations.push(href); // a web link's default action
    },
    pendingTimers: () => timers.size,
  };
}

describe('the inline script (node:vm)', () => {
  const target = targetFor('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
  const android = (extra: Partial<EscapePageInput> = {}) =>
    page(target, visitor('android', 'instagram'), extra);

  it('makes one automatic attempt ~400 ms after load; still visible after the delay, it continues to the website and reports browser', () => {
    const b = browse(android());
    b.advance(399);
    expect(b.navigations).toEqual([]);
    b.advance(1);
    expect(b.navigations).toEqual([target.android]);
    b.advance(2499);
    expect(b.outcomes()).toEqual([]);
    b.advance(1);
    expect(b.reports).toEqual([
      { via: 'beacon', url: TAP.reportUrl, body: { token: TAP.token, outcome: 'browser' } },
    ]);
    expect(b.navigations).toEqual([target.android, target.web]);
    b.advance(60_000);
    expect(b.navigations).toHaveLength(2); // the app is never retried
    expect(b.outcomes()).toEqual(['browser']);
  });

  it("waits the cell's fallback delay (TikTok Android: 3000 ms) before continuing", () => {
    const b = browse(page(target, visitor('android', 'tiktok')));
    b.click('lh-open');
    b.advance(2999);
    expect(b.outcomes()).toEqual([]);
    b.advance(1);
    expect(b.outcomes()).toEqual(['browser']);
    expect(b.navigations).toEqual([target.web]);
  });

  it('reports opened when the page turns hidden after the attempt, and clears its timers', () => {
    const b = browse(android());
    b.advance(400 + 900);
    b.hide();
    expect(b.outcomes()).toEqual(['opened']);
    expect(b.pendingTimers()).toBe(0);
    b.show();
    b.advance(10_000);
    b.hide();
    expect(b.outcomes()).toEqual(['opened']);
  });

  it('reports one outcome only: no opened after it continued to the website', () => {
    const b = browse(android());
    b.advance(400 + 2500);
    b.pagehide();
    b.hide();
    b.advance(3000);
    expect(b.outcomes()).toEqual(['browser']);
  });

  it.each([
    ['esc=1 in the URL', { search: '?utm=x&esc=1' }],
    ['a back/forward navigation', { navigation: 'back_forward' }],
    ['a reload', { navigation: 'reload' }],
  ])('makes no automatic attempt after %s', (_name, options) => {
    const b = browse(android(), options);
    b.advance(10_000);
    expect(b.navigations).toEqual([]);
    expect(b.outcomes()).toEqual([]);
  });

  it('makes no automatic attempt after a bfcache restore or when not planned', () => {
    const restored = browse(android());
    restored.pageshow(true);
    restored.advance(10_000);
    expect(restored.navigations).toEqual([]);
    const safari = browse(page(target, visitor('ios', null)));
    safari.advance(10_000);
    expect(safari.navigations).toEqual([]);
  });

  it('counts a tap on the button as an attempt (universal link in Safari)', () => {
    const b = browse(page(target, visitor('ios', null)));
    b.advance(5000);
    b.click('lh-open');
    b.advance(800);
    b.hide();
    expect(b.outcomes()).toEqual(['opened']);
  });

  it('reports broken, not opened, when the page is unloaded for the fallback after an attempt', () => {
    const b = browse(android());
    b.advance(400 + 300);
    b.pagehide(); // browsers fire pagehide before the unload's visibilitychange
    b.hide();
    expect(b.outcomes()).toEqual(['broken']);
  });

  it('reports browser for the web link, and no opened for the navigation that follows', () => {
    const b = browse(page(target, visitor('android', 'tiktok')));
    b.advance(1000);
    b.click('lh-web');
    b.pagehide();
    b.hide();
    b.advance(10_000);
    expect(b.navigations).toEqual([target.web]);
    expect(b.outcomes()).toEqual(['browser']);
  });

  it('reports browser when an x-safari bounce hides the page (it lands on the website in Safari)', () => {
    const b = browse(page(target, visitor('ios', 'tiktok')));
    b.click('lh-open');
    b.advance(500);
    b.hide();
    expect(b.outcomes()).toEqual(['browser']);
  });

  it('falls back to fetch with keepalive and a text/plain body without sendBeacon', () => {
    const b = browse(android(), { beacon: false });
    b.advance(400 + 100);
    b.hide();
    expect(b.reports).toEqual([
      {
        via: 'fetch',
        url: TAP.reportUrl,
        body: { token: TAP.token, outcome: 'opened' },
        init: {
          method: 'POST',
          body: JSON.stringify({ token: TAP.token, outcome: 'opened' }),
          keepalive: true,
          headers: { 'content-type': 'text/plain' },
        },
      },
    ]);
  });

  it('reports nothing without a tap (the engine), but still hands off', () => {
    for (const flow of ['opened', 'broken', 'browser'] as const) {
      const b = browse(android({ tap: null }));
      b.advance(500);
      if (flow === 'opened') b.hide();
      if (flow === 'broken') b.advance(5000);
      if (flow === 'browser') b.click('lh-web');
      b.advance(20_000);
      expect(b.navigations[0]).toBe(target.android);
      expect(b.reports).toEqual([]);
    }
  });
});
