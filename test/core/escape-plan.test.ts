import { describe, expect, it } from 'vitest';
import { createEscapeMatrix, type EscapeCell } from '../../src/core/escape/index.js';
import { allowedStrategies, planEscape, xSafariUrl } from '../../src/core/pages/escape-plan.js';
import type { AppTarget } from '../../src/core/platforms/index.js';
import type { InAppKey, Os, Visitor } from '../../src/core/visitor.js';

const WEB = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42';

const YOUTUBE: AppTarget = {
  platformKey: 'youtube',
  platformName: 'YouTube',
  contentType: 'video',
  web: WEB,
  ios: 'youtube://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42',
  iosUniversal: WEB,
  android: `intent://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42#Intent;scheme=https;package=com.google.android.youtube;S.browser_fallback_url=${encodeURIComponent(WEB)};end`,
  androidPackage: 'com.google.android.youtube',
  appStoreId: '544007664',
  bounce: 'https://lnk.example/yt?esc=1',
};

// A platform with no Android app and no iOS scheme (Apple Podcasts).
const NO_APPS: AppTarget = {
  ...YOUTUBE,
  platformKey: 'apple_podcasts',
  platformName: 'Apple Podcasts',
  web: 'https://podcasts.apple.com/us/podcast/id123',
  iosUniversal: 'https://podcasts.apple.com/us/podcast/id123',
  ios: null,
  android: null,
  androidPackage: null,
};

function visitor(os: Os, inApp: InAppKey | null): Visitor {
  return { os, mobile: os === 'ios' || os === 'android', inApp, bot: false, preview: false, prefetch: false };
}

// The bounce goes to the link itself with the marker, not to the destination (issue 18, fault a).
const X_SAFARI = 'x-safari-https://lnk.example/yt?esc=1';

describe('planEscape: Android', () => {
  it.each([null, 'instagram', 'facebook', 'line', 'telegram', 'other_webview'] as const)(
    '%s: the intent, one automatic attempt',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('android', inApp))).toEqual({
        strategy: 'intent',
        cell: { inApp, os: 'android', platform: 'youtube' },
        primary: { href: YOUTUBE.android, kind: 'intent' },
        autoAttempt: true,
        instructions: null,
        fallbackDelayMs: 2500,
        web: WEB,
      });
    },
  );

  it.each(['messenger', 'threads'] as const)(
    '%s: the intent on a tap (refused for a while in 2024)',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('android', inApp))).toMatchObject({
        strategy: 'intent',
        autoAttempt: false,
      });
    },
  );

  it('TikTok: the intent on a tap, a longer delay, plus the way out by hand', () => {
    expect(planEscape(YOUTUBE, visitor('android', 'tiktok'))).toMatchObject({
      strategy: 'intent',
      primary: { href: YOUTUBE.android, kind: 'intent' },
      autoAttempt: false,
      instructions: 'browser-menu-if-stuck',
      fallbackDelayMs: 3000,
    });
  });

  it.each(['wechat', 'weibo', 'qq'] as const)('%s: instructions only', (inApp) => {
    expect(planEscape(YOUTUBE, visitor('android', inApp))).toMatchObject({
      strategy: 'instructions',
      primary: null,
      autoAttempt: false,
      instructions: 'browser-menu',
    });
  });

  it('no Android app: no primary, the page keeps the web link', () => {
    for (const inApp of [null, 'instagram'] as const) {
      expect(planEscape(NO_APPS, visitor('android', inApp))).toMatchObject({
        strategy: 'none',
        primary: null,
        autoAttempt: false,
        instructions: null,
        web: NO_APPS.web,
      });
    }
  });
});

describe('planEscape: iOS', () => {
  it('Safari, Chrome iOS, SFSafariViewController: universal link on a tap', () => {
    expect(planEscape(YOUTUBE, visitor('ios', null))).toMatchObject({
      strategy: 'universal',
      primary: { href: YOUTUBE.iosUniversal, kind: 'universal' },
      autoAttempt: false,
    });
  });

  it.each(['instagram', 'facebook', 'threads', 'linkedin', 'line', 'telegram', 'gsa'] as const)(
    '%s forwards schemes: the app scheme, one automatic attempt',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('ios', inApp))).toMatchObject({
        strategy: 'scheme',
        primary: { href: YOUTUBE.ios, kind: 'scheme' },
        autoAttempt: true,
        instructions: null,
      });
    },
  );

  it('a forwarding webview without an app scheme: the bounce to Safari, no automatic attempt', () => {
    const target = { ...YOUTUBE, ios: null };
    expect(planEscape(target, visitor('ios', 'instagram'))).toMatchObject({
      strategy: 'x-safari',
      primary: { href: X_SAFARI, kind: 'x-safari' },
      autoAttempt: false,
    });
  });

  it.each(['tiktok', 'messenger', 'twitter', 'whatsapp', 'pinterest', 'kakaotalk', 'other_webview'] as const)(
    '%s: the bounce to Safari, on a tap',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('ios', inApp))).toMatchObject({
        strategy: 'x-safari',
        primary: { href: X_SAFARI, kind: 'x-safari' },
        autoAttempt: false,
      });
    },
  );

  it('without the link address the bounce opens the destination', () => {
    const { bounce: _bounce, ...target } = YOUTUBE;
    expect(planEscape(target, visitor('ios', 'tiktok')).primary?.href).toBe(
      'x-safari-https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42',
    );
  });

  it.each([
    ['snapchat', 'safari-menu'],
    ['wechat', 'browser-menu'],
  ] as const)('%s blocks every escape: instructions only', (inApp, hint) => {
    expect(planEscape(YOUTUBE, visitor('ios', inApp))).toMatchObject({
      strategy: 'instructions',
      primary: null,
      autoAttempt: false,
      instructions: hint,
    });
  });
});

describe('planEscape: other systems', () => {
  it.each(['desktop', 'other'] as const)('%s: the web link only', (os) => {
    expect(planEscape(YOUTUBE, visitor(os, null))).toMatchObject({
      strategy: 'none',
      primary: null,
      autoAttempt: false,
      instructions: null,
      web: WEB,
    });
  });
});

describe('planEscape: the matrix and the chooser', () => {
  const row = (over: Partial<EscapeCell>): EscapeCell => ({
    inApp: 'instagram',
    os: 'ios',
    platform: 'youtube',
    strategies: ['x-safari', 'scheme'],
    attempt: 'tap',
    fallbackDelayMs: 1200,
    source: 'test/core/escape-plan.test.ts',
    confirmed: '2026-11-01',
    ...over,
  });

  it('reads the cell from the matrix it is given (a platform row wins over the * row)', () => {
    const matrix = createEscapeMatrix([row({})]);
    expect(planEscape(YOUTUBE, visitor('ios', 'instagram'), matrix)).toMatchObject({
      strategy: 'x-safari',
      fallbackDelayMs: 1200,
      autoAttempt: false,
    });
    // Another platform in the same app keeps the built-in row.
    expect(planEscape(NO_APPS, visitor('ios', 'instagram'), matrix).strategy).toBe('x-safari');
    expect(
      planEscape({ ...YOUTUBE, platformKey: 'vimeo' }, visitor('ios', 'instagram'), matrix).strategy,
    ).toBe('scheme');
  });

  it('uses an allowed strategy the chooser picks, and ignores one it may not use', () => {
    const choices: unknown[] = [];
    const plan = planEscape(YOUTUBE, visitor('ios', 'instagram'), undefined, (cell, allowed) => {
      choices.push({ cell, allowed });
      return 'x-safari';
    });
    expect(choices).toEqual([
      { cell: { inApp: 'instagram', os: 'ios', platform: 'youtube' }, allowed: ['scheme', 'x-safari'] },
    ]);
    expect(plan).toMatchObject({ strategy: 'x-safari', primary: { kind: 'x-safari' }, autoAttempt: false });
    expect(planEscape(YOUTUBE, visitor('ios', 'instagram'), undefined, () => 'universal').strategy).toBe(
      'scheme',
    );
    expect(planEscape(YOUTUBE, visitor('ios', 'instagram'), undefined, () => undefined).strategy).toBe(
      'scheme',
    );
  });

  it('allowedStrategies keeps the feasible ones in order, or none', () => {
    expect(allowedStrategies({ inApp: 'instagram', os: 'ios', platform: 'youtube' }, YOUTUBE)).toEqual([
      'scheme',
      'x-safari',
    ]);
    expect(allowedStrategies({ inApp: 'instagram', os: 'ios', platform: 'x' }, NO_APPS)).toEqual([
      'x-safari',
    ]);
    expect(allowedStrategies({ inApp: null, os: 'android', platform: 'x' }, NO_APPS)).toEqual(['none']);
    expect(allowedStrategies({ inApp: null, os: 'desktop', platform: 'x' }, YOUTUBE)).toEqual(['none']);
  });
});

describe('xSafariUrl', () => {
  it('keeps host, path and query, drops the fragment', () => {
    expect(xSafariUrl('https://open.spotify.com/track/abc?si=1#frag')).toBe(
      'x-safari-https://open.spotify.com/track/abc?si=1',
    );
    expect(xSafariUrl('http://example.com:8080/a')).toBe('x-safari-http://example.com:8080/a');
  });
});
