import { describe, expect, it } from 'vitest';
import { planEscape, xSafariUrl } from '../../src/core/pages/escape-plan.js';
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

const X_SAFARI = 'x-safari-https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42';

describe('planEscape: Android', () => {
  it.each([null, 'instagram', 'facebook', 'messenger', 'threads', 'line', 'other_webview'] as const)(
    '%s: the intent, one automatic attempt',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('android', inApp))).toEqual({
        primary: { href: YOUTUBE.android, kind: 'intent' },
        autoAttempt: true,
        instructions: null,
        web: WEB,
      });
    },
  );

  it('TikTok: the intent on a tap, no automatic attempt, plus instructions', () => {
    expect(planEscape(YOUTUBE, visitor('android', 'tiktok'))).toEqual({
      primary: { href: YOUTUBE.android, kind: 'intent' },
      autoAttempt: false,
      instructions: 'tiktok',
      web: WEB,
    });
  });

  it('WeChat: instructions only', () => {
    expect(planEscape(YOUTUBE, visitor('android', 'wechat'))).toEqual({
      primary: null,
      autoAttempt: false,
      instructions: 'wechat',
      web: WEB,
    });
  });

  it('no Android app: no primary, the page keeps the web link', () => {
    for (const inApp of [null, 'instagram', 'tiktok'] as const) {
      expect(planEscape(NO_APPS, visitor('android', inApp))).toEqual({
        primary: null,
        autoAttempt: false,
        instructions: null,
        web: NO_APPS.web,
      });
    }
  });
});

describe('planEscape: iOS', () => {
  it.each([null, 'threads'] as const)(
    '%s (Safari, Chrome iOS, SFSafariViewController): universal link on a tap',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('ios', inApp))).toEqual({
        primary: { href: YOUTUBE.iosUniversal, kind: 'universal' },
        autoAttempt: false,
        instructions: null,
        web: WEB,
      });
    },
  );

  it.each(['instagram', 'facebook', 'linkedin', 'line', 'telegram', 'gsa'] as const)(
    '%s forwards schemes: the app scheme, one automatic attempt',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('ios', inApp))).toEqual({
        primary: { href: YOUTUBE.ios, kind: 'scheme' },
        autoAttempt: true,
        instructions: null,
        web: WEB,
      });
    },
  );

  it('a forwarding webview without an app scheme: x-safari bounce, no automatic attempt', () => {
    const target = { ...YOUTUBE, ios: null };
    expect(planEscape(target, visitor('ios', 'instagram'))).toEqual({
      primary: { href: X_SAFARI, kind: 'x-safari' },
      autoAttempt: false,
      instructions: null,
      web: WEB,
    });
  });

  it.each(['tiktok', 'messenger'] as const)('%s does not forward schemes: x-safari bounce', (inApp) => {
    expect(planEscape(YOUTUBE, visitor('ios', inApp))).toEqual({
      primary: { href: X_SAFARI, kind: 'x-safari' },
      autoAttempt: false,
      instructions: null,
      web: WEB,
    });
  });

  it.each(['snapchat', 'wechat'] as const)('%s blocks every escape: instructions only', (inApp) => {
    expect(planEscape(YOUTUBE, visitor('ios', inApp))).toEqual({
      primary: null,
      autoAttempt: false,
      instructions: inApp,
      web: WEB,
    });
  });

  it.each(['whatsapp', 'pinterest', 'kakaotalk', 'other_webview'] as const)(
    '%s (forwarding unknown): x-safari bounce',
    (inApp) => {
      expect(planEscape(YOUTUBE, visitor('ios', inApp)).primary).toEqual({
        href: X_SAFARI,
        kind: 'x-safari',
      });
    },
  );

  it('never plans an automatic attempt for a universal link or an x-safari bounce', () => {
    const keys: (InAppKey | null)[] = [null, 'threads', 'tiktok', 'messenger', 'whatsapp', 'snapchat'];
    for (const inApp of keys) {
      const plan = planEscape(YOUTUBE, visitor('ios', inApp));
      if (plan.primary?.kind !== 'scheme') expect(plan.autoAttempt).toBe(false);
    }
  });
});

describe('planEscape: other systems', () => {
  it.each(['desktop', 'other'] as const)('%s: the web link only', (os) => {
    expect(planEscape(YOUTUBE, visitor(os, null))).toEqual({
      primary: null,
      autoAttempt: false,
      instructions: null,
      web: WEB,
    });
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
