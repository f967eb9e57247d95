import { describe, expect, it } from 'vitest';
import {
  type AppTarget,
  appTargetFor,
  BUILTIN_PLATFORMS,
  createPlatformTable,
} from '../../src/core/platforms/index.js';

const table = createPlatformTable();

/** Reads an intent URL back the way Android's Intent.parseUri does: data part up to the last '#'. */
function parseIntent(intent: string) {
  expect(intent.startsWith('intent://')).toBe(true);
  const hash = intent.lastIndexOf('#');
  expect(intent.indexOf('#'), 'a single # separates the data from the extras').toBe(hash);
  const data = intent.slice('intent://'.length, hash);
  const extras = intent.slice(hash + 1).split(';');
  expect(extras[0]).toBe('Intent');
  expect(extras.at(-1)).toBe('end');
  const params = new Map<string, string>();
  for (const pair of extras.slice(1, -1)) {
    const eq = pair.indexOf('=');
    expect(eq).toBeGreaterThan(0);
    params.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  expect(extras.length - 2, 'no extra keys sneaked in').toBe(params.size);
  const scheme = params.get('scheme') ?? '';
  return {
    data,
    scheme,
    package: params.get('package') ?? null,
    fallback: decodeURIComponent(params.get('S.browser_fallback_url') ?? ''),
    keys: [...params.keys()],
    url: new URL(`${scheme}://${data}`),
  };
}

/** Nothing that could end an attribute, start a tag, or split the URL. */
function expectInert(value: string) {
  expect(value).toMatch(/^[!-~]+$/);
  expect(value).not.toMatch(/["'<>\\`\s{}|^]/);
}

function decoded(url: URL) {
  return {
    host: url.host,
    path: decodeURIComponent(url.pathname),
    query: [...url.searchParams],
  };
}

describe('appTargetFor', () => {
  it('builds the exact YouTube target', () => {
    expect(appTargetFor(table, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s')).toEqual({
      platformKey: 'youtube',
      platformName: 'YouTube',
      contentType: 'video',
      web: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
      ios: 'youtube://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
      iosUniversal: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
      android:
        'intent://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s#Intent;scheme=https;package=com.google.android.youtube;' +
        'S.browser_fallback_url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DdQw4w9WgXcQ%26t%3D42s;end',
      androidPackage: 'com.google.android.youtube',
      appStoreId: '544007664',
    } satisfies AppTarget);
  });

  it.each([
    [
      'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT?si=abc',
      'intent://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT?si=abc#Intent;scheme=https;package=com.spotify.music;' +
        'S.browser_fallback_url=https%3A%2F%2Fopen.spotify.com%2Ftrack%2F4cOdK2wGLETKBW3PvgPWqT%3Fsi%3Dabc;end',
    ],
    [
      'https://www.instagram.com/natgeo/',
      'intent://www.instagram.com/natgeo/#Intent;scheme=https;package=com.instagram.android;' +
        'S.browser_fallback_url=https%3A%2F%2Fwww.instagram.com%2Fnatgeo%2F;end',
    ],
    [
      'https://www.amazon.com/dp/B08N5WRWNW?tag=creator-20',
      'intent://www.amazon.com/dp/B08N5WRWNW?tag=creator-20#Intent;scheme=https;package=com.amazon.mShop.android.shopping;' +
        'S.browser_fallback_url=https%3A%2F%2Fwww.amazon.com%2Fdp%2FB08N5WRWNW%3Ftag%3Dcreator-20;end',
    ],
    [
      'http://wa.me/15551234567',
      'intent://wa.me/15551234567#Intent;scheme=http;package=com.whatsapp;' +
        'S.browser_fallback_url=http%3A%2F%2Fwa.me%2F15551234567;end',
    ],
    [
      // TikTok: no package, so whichever TikTok build verified tiktok.com takes it
      'https://www.tiktok.com/@khaby.lame/video/7234567890123456789',
      'intent://www.tiktok.com/@khaby.lame/video/7234567890123456789#Intent;scheme=https;' +
        'S.browser_fallback_url=https%3A%2F%2Fwww.tiktok.com%2F%40khaby.lame%2Fvideo%2F7234567890123456789;end',
    ],
    [
      'https://youtu.be/dQw4w9WgXcQ',
      'intent://youtu.be/dQw4w9WgXcQ#Intent;scheme=https;package=com.google.android.youtube;' +
        'S.browser_fallback_url=https%3A%2F%2Fyoutu.be%2FdQw4w9WgXcQ;end',
    ],
  ])('intent for %s', (url, intent) => {
    expect(appTargetFor(table, url)?.android).toBe(intent);
  });

  it('keeps TikTok’s package on the target for store links', () => {
    const target = appTargetFor(table, 'https://www.tiktok.com/@khaby.lame');
    expect(target?.androidPackage).toBe('com.zhiliaoapp.musically');
    expect(target?.android).not.toContain('package=');
  });

  it('drops the fragment from the intent and the scheme URL, keeps it on the web URL', () => {
    const target = appTargetFor(table, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ#t=30;x=#y');
    expect(target?.web).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ#t=30;x=#y');
    expect(target?.iosUniversal).toBe(target?.web);
    expect(target?.ios).toBe('youtube://www.youtube.com/watch?v=dQw4w9WgXcQ');
    const intent = parseIntent(target?.android ?? '');
    expect(intent.data).toBe('www.youtube.com/watch?v=dQw4w9WgXcQ');
    expect(intent.fallback).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ#t=30;x=#y');
  });

  it('uses the caller’s fallback URL, encoded', () => {
    const target = appTargetFor(table, 'https://t.me/durov', {
      fallbackUrl: 'https://s.example/f/abc?t=1&x=a;b#c',
    });
    expect(target?.android).toBe(
      'intent://t.me/durov#Intent;scheme=https;package=org.telegram.messenger;' +
        'S.browser_fallback_url=https%3A%2F%2Fs.example%2Ff%2Fabc%3Ft%3D1%26x%3Da%3Bb%23c;end',
    );
    expect(target?.web).toBe('https://t.me/durov');
    const local = appTargetFor(table, 'https://t.me/durov', { fallbackUrl: 'http://127.0.0.1:3000/f/abc' });
    expect(parseIntent(local?.android ?? '').fallback).toBe('http://127.0.0.1:3000/f/abc');
  });

  it.each(['javascript:alert(1)', 'intent://evil#Intent;end', 'not a url', ''])(
    'ignores a fallback that is not http(s): %s',
    (fallbackUrl) => {
      const target = appTargetFor(table, 'https://t.me/durov', { fallbackUrl });
      expect(parseIntent(target?.android ?? '').fallback).toBe('https://t.me/durov');
    },
  );

  it('targets, and falls back to, the URL a wrapper points at', () => {
    const shim = `https://l.facebook.com/l.php?u=${encodeURIComponent('https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT')}&h=AT0`;
    const target = appTargetFor(table, shim);
    expect(target?.platformKey).toBe('spotify');
    expect(target?.web).toBe('https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT');
    expect(target?.ios).toBe('spotify:track:4cOdK2wGLETKBW3PvgPWqT');
    expect(parseIntent(target?.android ?? '').data).toBe('open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT');
  });

  it('has no Android intent for a platform without an Android app', () => {
    const target = appTargetFor(table, 'https://podcasts.apple.com/us/podcast/the-daily/id1200361736');
    expect(target?.platformKey).toBe('apple_podcasts');
    expect(target?.android).toBeNull();
    expect(target?.androidPackage).toBeNull();
    expect(target?.appStoreId).toBeNull();
    expect(target?.ios).toBe('podcasts://podcasts.apple.com/us/podcast/the-daily/id1200361736');
  });

  it.each([
    'https://www.youtube.com/about',
    'https://www.youtube.com/t/terms',
    'https://www.youtube.com/embed/dQw4w9WgXcQ',
    'https://www.youtube.com/watch',
    'https://www.youtube.com/watch?v=%3Cscript%3E',
    'https://youtu.be/',
    'https://open.spotify.com/',
    'https://open.spotify.com/track/',
    'https://open.spotify.com/track/not-a-spotify-id!',
    'https://www.instagram.com/accounts/login/',
    'https://www.instagram.com/accounts/login/?next=/natgeo/',
    'https://www.instagram.com/legal/privacy/',
    'https://www.amazon.com/gp/help/customer/display.html?nodeId=508510',
    'https://www.amazon.com/ap/signin',
    'https://x.com/settings/account',
    'https://x.com/i/flow/login',
    'https://www.facebook.com/help/123',
    'https://www.facebook.com/policies',
    'https://www.tiktok.com/legal/page/us/terms-of-service/en',
    'https://t.me/',
    'https://t.me/share/url?url=x',
    'https://www.patreon.com/',
    'https://www.patreon.com/pricing',
    'https://www.linkedin.com/legal/user-agreement',
    'https://soundcloud.com/discover',
    'https://slack.com/pricing',
    'https://api.slack.com/apis',
    'https://www.reddit.com/policies/privacy-policy',
    'https://www.twitch.tv/directory/category/just-chatting',
    'https://www.pinterest.com/ideas/',
    'https://www.snapchat.com/',
    'https://discord.com/',
    'https://www.netflix.com/help',
    'https://wa.me/',
    'https://wa.me/notaphone',
    'https://www.ebay.com/help/home',
    'https://www.etsy.com/legal/',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ%',
    'https://www.youtube.com/%E0%A4%A',
  ])('skips a path the app cannot open: %s', (url) => {
    expect(table.match(url)).not.toBeNull();
    expect(appTargetFor(table, url)).toBeNull();
  });

  it.each([
    'https://example.com/',
    'https://notyoutube.com/watch?v=dQw4w9WgXcQ',
    'https://t.co/abc',
    'javascript:alert(1)',
    'garbage',
  ])('is null when no platform owns %s', (url) => {
    expect(appTargetFor(table, url)).toBeNull();
  });

  it.each(BUILTIN_PLATFORMS.map((p) => [p.key]))('opens the %s app', (key) => {
    const platform = table.byKey(key);
    const url = SAMPLE[key];
    expect(url, `a sample for ${key}`).toBeDefined();
    const target = appTargetFor(table, url ?? '');
    expect(target?.platformKey).toBe(key);
    expect(target?.platformName).toBe(platform?.name);
    expect(target?.androidPackage).toBe(platform?.android?.package ?? null);
    expect(target?.appStoreId).toBe(platform?.ios?.appStoreId ?? null);
    if (platform?.android) {
      const intent = parseIntent(target?.android ?? '');
      expect(intent.package).toBe(platform.android.packageless ? null : platform.android.package);
      expect(intent.scheme).toBe('https');
      expect(decoded(intent.url)).toEqual(decoded(new URL(url ?? '')));
      expect(intent.fallback).toBe(new URL(url ?? '').href);
    } else {
      expect(target?.android).toBeNull();
    }
    if (target?.ios) expectInert(target.ios);
  });
});

const SAMPLE: Record<string, string> = {
  youtube: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  youtube_music: 'https://music.youtube.com/watch?v=abc123def45',
  instagram: 'https://www.instagram.com/p/CuE0aQ7LeKq/',
  tiktok: 'https://www.tiktok.com/@khaby.lame/video/7234567890123456789',
  x: 'https://x.com/jack/status/20',
  facebook: 'https://www.facebook.com/zuck',
  messenger: 'https://m.me/12345',
  threads: 'https://www.threads.net/@zuck',
  whatsapp: 'https://wa.me/15551234567?text=hi',
  telegram: 'https://t.me/durov/1',
  snapchat: 'https://www.snapchat.com/add/teamsnapchat',
  pinterest: 'https://www.pinterest.fr/pin/123456789/',
  linkedin: 'https://www.linkedin.com/in/williamhgates/',
  reddit: 'https://www.reddit.com/r/typescript/comments/abc123/t/',
  twitch: 'https://www.twitch.tv/shroud',
  discord: 'https://discord.gg/typescript',
  spotify: 'https://open.spotify.com/intl-fr/track/4cOdK2wGLETKBW3PvgPWqT',
  apple_music: 'https://music.apple.com/us/album/thriller/269572838?i=269573364',
  soundcloud: 'https://soundcloud.com/forss/flickermood',
  amazon: 'https://www.amazon.co.jp/dp/B08N5WRWNW?tag=x-22',
  patreon: 'https://www.patreon.com/creator',
  bluesky: 'https://bsky.app/profile/jay.bsky.team/post/3k2abc',
  vimeo: 'https://vimeo.com/76979871',
  google_maps: 'https://www.google.com/maps/place/Eiffel+Tower',
  etsy: 'https://www.etsy.com/listing/123456789/mug',
  ebay: 'https://www.ebay.de/itm/123456789012',
  deezer: 'https://www.deezer.com/fr/album/302127',
  apple_podcasts: 'https://podcasts.apple.com/us/podcast/the-daily/id1200361736',
  netflix: 'https://www.netflix.com/title/80057281',
  zoom: 'https://us02web.zoom.us/j/85212345678',
  slack: 'https://acme.slack.com/archives/C01234567',
};

describe('hostile input never breaks the generated URLs', () => {
  const HOSTILE = [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&x="><script>alert(1)</script>',
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&x=' onmouseover='alert(1)",
    'https://www.youtube.com/@chan"<img src=x>',
    "https://www.youtube.com/@chan'quote`tick{brace}|pipe^caret\\back",
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&q=a b;c&r=%23Intent;scheme=javascript;end',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&next=javascript:alert(document.cookie)',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&x=;package=evil.app;S.browser_fallback_url=javascript:alert(1)',
    'https://www.youtube.com/@日本語チャンネル?q=ü&e=😀',
    'https://www.youtube.com/@x%0Ay%0D%00z',
    'https://www.amazon.com/dp/B08N5WRWNW?tag=a"b&k=<x>#frag"<>',
    'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT?si=a"b#x',
    'https://wa.me/15551234567?text=";alert(1);//<\'>&x=javascript:alert(1)',
    'https://api.whatsapp.com/send?phone=15551234567&text=%0Aline%20two%E2%80%AE',
    'https://t.me/durov?start=a"b<c>',
    'https://www.instagram.com/explore/tags/%22%3E%3Csvg%3E/',
    'https://www.facebook.com/zuck?x="><svg/onload=alert(1)>',
    'https://www.pinterest.com/search/pins/?q="><script>',
    'https://bsky.app/profile/a"b/post/3k2abc',
    'https://music.apple.com/us/album/x"y/269572838?i=269573364&z=<script>',
    'https://www.google.com/maps/search/?api=1&query=javascript:alert(1)"<>',
    'https://us02web.zoom.us/j/85212345678?pwd="><x',
    'https://www.reddit.com/r/typescript/comments/abc123/{x}|y^z`w/',
  ];

  it.each(HOSTILE)('%s', (url) => {
    const target = appTargetFor(table, url);
    expect(target).not.toBeNull();
    const intent = parseIntent(target?.android ?? '');
    expectInert(target?.android ?? '');
    expect(intent.keys).toEqual(['scheme', 'package', 'S.browser_fallback_url']);
    expect(intent.scheme).toBe('https');
    expect(intent.package).toBe(table.byKey(target?.platformKey ?? '')?.android?.package);
    const original = new URL(url);
    expect(decoded(intent.url)).toEqual(decoded(original));
    expect(intent.fallback).toBe(original.href);
    if (target?.ios) {
      expectInert(target.ios);
      expect(target.ios).not.toMatch(/^(javascript|data|vbscript|file|https?):/i);
      expect(target.ios.startsWith(`${table.byKey(target.platformKey)?.ios?.scheme}:`)).toBe(true);
    }
  });

  it('percent-encodes query values into scheme URLs', () => {
    const target = appTargetFor(table, 'https://wa.me/15551234567?text=a%26b%3Dc%23d%20e');
    expect(target?.ios).toBe('whatsapp://send?phone=15551234567&text=a%26b%3Dc%23d%20e');
    expect(new URL(target?.ios ?? '').searchParams.get('text')).toBe('a&b=c#d e');
    const tg = appTargetFor(table, 'https://t.me/mybot?start=x%26domain%3Devil');
    expect(new URL(tg?.ios ?? '').searchParams.getAll('domain')).toEqual(['mybot']);
  });

  it('keeps a lossless YouTube scheme URL equal to the web URL', () => {
    const url = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL1&x=a%20b&y=%E2%9C%93';
    const ios = appTargetFor(table, url)?.ios ?? '';
    expect(decoded(new URL(ios.replace(/^youtube:/, 'https:')))).toEqual(decoded(new URL(url)));
  });
});
