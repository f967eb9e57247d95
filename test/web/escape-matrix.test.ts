import pino from 'pino';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { BUILTIN_ESCAPE_CELLS, type EscapeCell } from '../../src/core/escape/index.js';
import { allowedStrategies, type EscapePlan, planEscape } from '../../src/core/pages/index.js';
import { appTargetFor, createPlatformTable } from '../../src/core/platforms/index.js';
import type { Visitor } from '../../src/core/visitor.js';
import { UA_CORPUS } from '../core/ua-corpus.js';
import { IN_APP_FIXTURES } from '../helpers/in-app-user-agents.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';
import { browserSkipReason, launchBrowser } from './harness.js';

/**
 * Every cell of the built-in escape matrix, in Debian's Chromium with the cell's user agent and touch
 * emulation, against the real hosted service over HTTP: the page attempts the hand-off the matrix names
 * (at most once by script, and only where the cell allows it; a tap button where a tap is required),
 * offers "Continue to website", continues there after the cell's delay, and beacons the outcome:
 * hidden after the attempt -> opened, still visible after the delay -> browser, unloaded right after the
 * attempt -> broken. The page's clock is Playwright's, so each delay passes at once.
 */

const DESTINATION = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const SLUG = 'yt';

// Cells whose app has no cited public fixture for this OS: the app's own token on the generic webview UA.
const GENERIC_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const GENERIC_ANDROID =
  'Mozilla/5.0 (Linux; Android 13; SM-A536B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36';
const corpus = (name: string) => UA_CORPUS.find((c) => c.name === name)?.ua ?? '';
const EXTRA: Record<string, string> = {
  'browser ios': corpus('Safari iOS'),
  'browser android': corpus('Chrome Android'),
  'other_webview ios': corpus('iOS WKWebView generic'),
  'other_webview android': corpus('Android WebView generic'),
  'linkedin android': corpus('LinkedIn Android'),
  'pinterest ios': corpus('Pinterest iOS'),
  'telegram android': corpus('Telegram Android (Telegram-Android token)'),
  'telegram ios': `${GENERIC_IOS} Telegram-iOS/11.5`,
  'snapchat android': `${GENERIC_ANDROID} Snapchat/12.72.0.39`,
  'reddit ios': `${GENERIC_IOS} Reddit/Version 2024.41.0/Build 612345`,
  'weibo android': `${GENERIC_ANDROID} Weibo (Xiaomi-2211133C__weibo__14.9.0__android__android14)`,
};

function uaFor(cell: EscapeCell): string {
  const key = `${cell.inApp ?? 'browser'} ${cell.os}`;
  const ua = IN_APP_FIXTURES.find((f) => f.inApp === cell.inApp && f.os === cell.os)?.ua ?? EXTRA[key];
  if (!ua) throw new Error(`no user agent for ${key}`);
  return ua;
}

/** The plan the matrix gives this cell for the link, built the way the server builds it. */
function expectedPlan(cell: EscapeCell): EscapePlan {
  // BASE_URL is what the server calls itself in the link's own addresses.
  const target = appTargetFor(createPlatformTable(), DESTINATION, {
    selfUrl: `http://127.0.0.1/${SLUG}`,
    via: `http://127.0.0.1/_fallback/${SLUG}`,
  });
  if (target === null) throw new Error('YouTube is a platform');
  const visitor: Visitor = {
    os: cell.os,
    inApp: cell.inApp,
    mobile: true,
    bot: false,
    preview: false,
    prefetch: false,
  };
  const plan = planEscape(target, visitor);
  // The matrix's own order: the first strategy of the cell that a YouTube link allows.
  if (plan.strategy !== allowedStrategies(cell, target)[0])
    throw new Error(`${cell.inApp} ${cell.os}: not first`);
  return plan;
}

interface Seen {
  /** Every navigation the page asked for, in order (any scheme), from Page.frameRequestedNavigation. */
  navigations: string[];
  outcomes: string[];
}

// One retry: once in CI (Node 24's run; not reproduced in 300 runs of that cell here, loaded or idle), a
// cell's outcome beacon never reached the test's request interception. The page's clock is paused, so a
// fault of the page itself repeats on the retry; a lost CDP interception does not.
const noBrowser = browserSkipReason !== null;
describe.skipIf(noBrowser)('the escape matrix in Chromium, cell by cell', { retry: 1 }, () => {
  let testStore: TestStore;
  let composed: Composed;
  let baseUrl = '';
  let context: BrowserContext;
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    testStore = await sqliteKind.create();
    const now = new Date().toISOString();
    await testStore.store.db
      .insertInto('organizations')
      .values({ id: 'org-1', name: 'Org', tier: 'sidekick', created_at: now })
      .execute();
    await testStore.store.db
      .insertInto('links')
      .values({
        id: 'l1',
        org_id: 'org-1',
        host: '',
        slug: SLUG,
        destination: DESTINATION,
        platform_key: null,
        archived_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    composed = await composeHosted(
      parseConfig(
        { BASE_URL: 'http://127.0.0.1', SESSION_SECRET: 'escape-matrix-secret-0123456789abcdef' },
        'hosted',
      ),
      testStore.store,
      pino({ level: 'silent' }),
    );
    await composed.app.listen({ port: 0, host: '127.0.0.1' });
    const address = composed.app.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const browser = await launchBrowser();
    context = await browser.newContext({
      isMobile: true,
      hasTouch: true,
      viewport: { width: 390, height: 844 },
    });
    close = async () => {
      await browser.close();
      await composed.close();
      await testStore.dispose();
    };
  }, 60_000);
  afterAll(() => close());

  async function open(cell: EscapeCell, query = ''): Promise<{ page: Page; seen: Seen }> {
    const page = await context.newPage();
    const seen: Seen = { navigations: [], outcomes: [] };
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setUserAgentOverride', { userAgent: uaFor(cell) });
    await cdp.send('Page.enable');
    cdp.on('Page.frameRequestedNavigation', (event: { url: string }) => {
      seen.navigations.push(event.url);
    });
    await page.route('**/api/public/tap', async (route) => {
      seen.outcomes.push(JSON.parse(route.request().postData() ?? '{}').outcome);
      await route.fulfill({ status: 204 });
    });
    // No request leaves the machine: the website and the universal link are answered here.
    await page.route(/^https:\/\/www\.youtube\.com\//, (route) => route.abort('aborted'));
    // A paused clock: time moves only through runFor, however slow the machine is.
    await page.clock.install({ time: new Date('2026-11-01T00:00:00Z') });
    await page.clock.pauseAt(new Date('2026-11-01T00:00:01Z'));
    await page.goto(`${baseUrl}/${SLUG}${query}`);
    return { page, seen };
  }

  /** Starts the cell's one attempt: the script's own after ~400 ms where allowed, else a tap. */
  async function attempt(page: Page, cell: EscapeCell, plan: EscapePlan, seen: Seen): Promise<void> {
    await page.clock.runFor(450);
    if (plan.autoAttempt) {
      await expect.poll(() => seen.navigations).toEqual([plan.primary?.href]);
    } else {
      await page.clock.runFor(10_000);
      // A tap is required: nothing was attempted by script, even long after load.
      expect(seen.navigations).toEqual([]);
      await page.tap('#lh-open', { noWaitAfter: true });
      await expect.poll(() => seen.navigations).toEqual([plan.primary?.href]);
    }
    expect(cell.attempt === 'script' || !plan.autoAttempt).toBe(true);
  }

  const success = (plan: EscapePlan) => (plan.strategy === 'x-safari' ? 'browser' : 'opened');

  // One line per cell: `instagram ios youtube: scheme, script, 2500ms`.
  it.each(
    BUILTIN_ESCAPE_CELLS.map((cell) => {
      const plan = expectedPlan(cell);
      const how = `${plan.strategy}, ${plan.autoAttempt ? 'script' : 'tap'}, ${plan.fallbackDelayMs}ms`;
      return [`${cell.inApp ?? 'browser'} ${cell.os} youtube: ${how}`, cell, plan] as const;
    }),
  )('%s', async (_name, cell, plan) => {
    if (plan.primary === null) {
      const { page, seen } = await open(cell);
      expect(await page.locator('#lh-open').count()).toBe(0);
      await expect.poll(() => page.locator('p.i').textContent()).toMatch(/tap ⋯ at the top right/);
      await page.clock.runFor(20_000);
      expect(seen.navigations).toEqual([]);
      expect(seen.outcomes).toEqual([]);
      expect(await page.getAttribute('#lh-web', 'href')).toBe(DESTINATION);
      await page.tap('#lh-web', { noWaitAfter: true });
      await expect.poll(() => seen.outcomes).toEqual(['browser']);
      await page.close();
      return;
    }

    const primary = plan.primary;
    // The three outcomes, one page each (one at a time: a background page counts as hidden).
    // Hidden after the attempt: the app (or Safari) took over.
    {
      const { page, seen } = await open(cell);
      expect(await page.textContent('#lh-web')).toBe('Continue to website');
      expect(await page.getAttribute('#lh-web', 'href')).toBe(DESTINATION);
      await attempt(page, cell, plan, seen);
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await expect.poll(() => seen.outcomes).toEqual([success(plan)]);
      await page.clock.runFor(20_000);
      expect(seen.navigations).toEqual([primary.href]); // one attempt, no fallback after leaving
      await page.close();
    }
    // Still visible after the delay: the page continues to the website and says so.
    {
      const { page, seen } = await open(cell);
      await attempt(page, cell, plan, seen);
      await page.clock.runFor(plan.fallbackDelayMs - 100);
      expect(seen.outcomes).toEqual([]);
      await page.clock.runFor(200);
      await expect.poll(() => seen.outcomes).toEqual(['browser']);
      await expect.poll(() => seen.navigations).toEqual([primary.href, DESTINATION]);
      await page.clock.runFor(20_000);
      expect(seen.navigations).toHaveLength(2); // never retried
      await page.close();
    }
    // Unloaded right after the attempt (an error page, the intent's fallback): broken.
    {
      const { page, seen } = await open(cell);
      await attempt(page, cell, plan, seen);
      await page.evaluate(() =>
        window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })),
      );
      await expect.poll(() => seen.outcomes).toEqual(['broken']);
      await page.close();
    }
  });

  it('the bounce back to the link (esc=1) in Safari: the universal-link button, no automatic attempt', async () => {
    const safari = BUILTIN_ESCAPE_CELLS.find((c) => c.inApp === null && c.os === 'ios');
    const tiktok = BUILTIN_ESCAPE_CELLS.find((c) => c.inApp === 'tiktok' && c.os === 'ios');
    const chrome = BUILTIN_ESCAPE_CELLS.find((c) => c.inApp === null && c.os === 'android');
    if (!safari || !tiktok || !chrome) throw new Error('built-in cells missing');
    // TikTok's webview bounces to the link itself, marked, not to the destination.
    expect(expectedPlan(tiktok).primary?.href).toBe(`x-safari-http://127.0.0.1/${SLUG}?esc=1`);
    const { page, seen } = await open(safari, '?esc=1');
    expect(await page.getAttribute('#lh-open', 'href')).toBe(DESTINATION);
    await page.clock.runFor(10_000);
    expect(seen.navigations).toEqual([]);
    await page.close();
    // Where a script attempt is allowed, the marker still stops it.
    const android = await open(chrome, '?esc=1');
    await android.page.clock.runFor(10_000);
    expect(android.seen.navigations).toEqual([]);
    await android.page.close();
  });
});
