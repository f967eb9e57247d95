import { describe, expect, it } from 'vitest';
import { BUILTIN_PLATFORMS, createPlatformTable, type Platform } from '../../src/core/platforms/index.js';

const table = createPlatformTable();

const REFERENCE_KEYS = [
  'youtube',
  'youtube_music',
  'instagram',
  'tiktok',
  'x',
  'facebook',
  'messenger',
  'threads',
  'whatsapp',
  'telegram',
  'snapchat',
  'pinterest',
  'linkedin',
  'reddit',
  'twitch',
  'discord',
  'spotify',
  'apple_music',
  'soundcloud',
  'amazon',
  'patreon',
  'bluesky',
];

/** Typical destinations per built-in, including short hosts, regional domains and host prefixes. */
const MATCHES: Record<string, string[]> = {
  youtube: [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://youtube.com/shorts/abcdefghijk',
    'https://m.youtube.com/@mkbhd',
    'http://youtu.be/dQw4w9WgXcQ',
    'https://WWW.YouTube.COM./watch?v=dQw4w9WgXcQ',
  ],
  youtube_music: ['https://music.youtube.com/watch?v=abc123def45', 'https://music.youtube.com/'],
  instagram: [
    'https://www.instagram.com/natgeo/',
    'https://instagram.com/p/CuE0aQ7LeKq/',
    'https://instagr.am/p/CuE0aQ7LeKq',
    'https://ig.me/m/natgeo',
  ],
  tiktok: [
    'https://www.tiktok.com/@khaby.lame/video/7234567890123456789',
    'https://m.tiktok.com/@khaby.lame',
    'https://vm.tiktok.com/ZMabc123/',
    'https://vt.tiktok.com/ZSabc123/',
  ],
  x: [
    'https://x.com/jack/status/20',
    'https://twitter.com/jack',
    'https://mobile.twitter.com/jack',
    'https://mobile.x.com/jack',
    'https://www.x.com/jack',
  ],
  facebook: [
    'https://www.facebook.com/zuck',
    'https://m.facebook.com/profile.php?id=4',
    'https://web.facebook.com/zuck',
    'https://fb.com/zuck',
    'https://fb.watch/abc123/',
    'https://fb.me/abc',
  ],
  messenger: ['https://m.me/somepage', 'https://www.messenger.com/t/12345'],
  threads: ['https://www.threads.net/@zuck', 'https://threads.com/@zuck/post/C8abcdEFgh'],
  whatsapp: [
    'https://wa.me/15551234567',
    'https://api.whatsapp.com/send?phone=15551234567',
    'https://chat.whatsapp.com/AbCdEf123',
    'https://www.whatsapp.com/channel/0029VaAbc',
  ],
  telegram: ['https://t.me/durov', 'https://telegram.me/durov', 'https://telegram.dog/durov'],
  snapchat: ['https://www.snapchat.com/add/teamsnapchat', 'https://t.snapchat.com/abcd'],
  pinterest: [
    'https://www.pinterest.com/pin/123456789/',
    'https://pinterest.co.uk/marthastewart/',
    'https://www.pinterest.de/marthastewart/',
    'https://www.pinterest.com.au/marthastewart/',
    'https://www.pinterest.co.kr/marthastewart/',
    'https://uk.pinterest.com/marthastewart/',
    'https://pin.it/abc123',
  ],
  linkedin: ['https://www.linkedin.com/in/williamhgates/', 'https://linkedin.com/company/microsoft'],
  reddit: [
    'https://www.reddit.com/r/typescript/',
    'https://old.reddit.com/r/typescript/',
    'https://np.reddit.com/r/typescript/',
    'https://redd.it/abc123',
  ],
  twitch: ['https://www.twitch.tv/shroud', 'https://m.twitch.tv/shroud', 'https://clips.twitch.tv/FunnyClip'],
  discord: [
    'https://discord.gg/typescript',
    'https://discord.com/invite/typescript',
    'https://discordapp.com/invite/x',
  ],
  spotify: [
    'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT',
    'https://play.spotify.com/album/1DFixLWuPkv3KT3TnV35m3',
    'https://spotify.link/abc',
    'https://spoti.fi/abc',
  ],
  apple_music: [
    'https://music.apple.com/us/album/thriller/269572838',
    'https://geo.music.apple.com/us/album/thriller/269572838',
    'https://itunes.apple.com/us/album/thriller/id269572838',
  ],
  soundcloud: [
    'https://soundcloud.com/forss/flickermood',
    'https://m.soundcloud.com/forss',
    'https://on.soundcloud.com/abc',
    'https://snd.sc/abc',
  ],
  amazon: [
    'https://www.amazon.com/dp/B08N5WRWNW',
    'https://www.amazon.co.uk/dp/B08N5WRWNW',
    'https://www.amazon.de/dp/B08N5WRWNW',
    'https://www.amazon.co.jp/dp/B08N5WRWNW',
    'https://www.amazon.com.br/dp/B08N5WRWNW',
    'https://www.amazon.in/dp/B08N5WRWNW',
    'https://www.amazon.com.be/dp/B08N5WRWNW',
    'https://amzn.to/3abcDEF',
    'https://a.co/d/abc',
    'https://amzn.eu/d/abc',
    'https://amzn.asia/d/abc',
  ],
  patreon: ['https://www.patreon.com/creator', 'https://patreon.com/posts/some-post-12345'],
  bluesky: ['https://bsky.app/profile/jay.bsky.team', 'https://go.bsky.app/abc'],
  vimeo: ['https://vimeo.com/76979871', 'https://player.vimeo.com/video/76979871'],
  google_maps: [
    'https://www.google.com/maps/place/Eiffel+Tower',
    'https://google.com/maps?q=coffee',
    'https://maps.google.com/?q=coffee',
    'https://maps.app.goo.gl/abc123',
    'https://goo.gl/maps/abc123',
  ],
  etsy: ['https://www.etsy.com/listing/123456789/handmade-mug', 'https://etsy.me/abc'],
  ebay: [
    'https://www.ebay.com/itm/123456789012',
    'https://www.ebay.co.uk/itm/123456789012',
    'https://www.ebay.de/itm/123456789012',
    'https://befr.ebay.be/itm/123456789012',
    'https://ebay.us/abc',
  ],
  deezer: [
    'https://www.deezer.com/en/track/3135556',
    'https://deezer.page.link/abc',
    'https://link.deezer.com/s/x',
  ],
  apple_podcasts: [
    'https://podcasts.apple.com/us/podcast/the-daily/id1200361736',
    'https://itunes.apple.com/us/podcast/the-daily/id1200361736',
  ],
  netflix: ['https://www.netflix.com/title/80057281'],
  zoom: ['https://zoom.us/j/85212345678', 'https://us02web.zoom.us/j/85212345678'],
  slack: ['https://app.slack.com/client/T01234567', 'https://acme.slack.com/archives/C01234567'],
};

describe('the built-in table', () => {
  it('has the 22 platforms of the reference and the extras', () => {
    const keys = BUILTIN_PLATFORMS.map((p) => p.key);
    for (const key of REFERENCE_KEYS) expect(keys).toContain(key);
    expect(BUILTIN_PLATFORMS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(MATCHES).sort()).toEqual([...keys].sort());
  });

  it.each(BUILTIN_PLATFORMS.map((p) => [p.key, p] as const))('%s is well-formed', (_key, p: Platform) => {
    // JSON keys need 2 to 32 characters; the reference's own 'x' is the one built-in below that
    expect(p.key).toMatch(p.key === 'x' ? /^x$/ : /^[a-z0-9_]{2,32}$/);
    expect(p.name.length).toBeGreaterThan(0);
    expect(p.hosts.length).toBeGreaterThan(0);
    expect(p.contentTypes.length).toBeGreaterThan(0);
    for (const host of [...p.hosts, ...p.shortHosts]) {
      expect(host).toMatch(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      // stripped before matching, so listing them would be dead weight (m.me is a host of its own)
      if (host !== 'm.me') expect(host).not.toMatch(/^(www|m|mobile)\./);
    }
    if (p.android) expect(p.android.package).toMatch(/^[a-zA-Z][\w]*(\.[a-zA-Z][\w]*)+$/);
    if (p.ios) {
      expect(p.ios.scheme).toMatch(/^[a-z][a-z0-9+.-]*$/);
      if (p.ios.appStoreId !== null) expect(p.ios.appStoreId).toMatch(/^\d+$/);
    }
  });

  it('claims every host once', () => {
    const seen = new Map<string, string>();
    for (const p of BUILTIN_PLATFORMS) {
      for (const host of [...p.hosts, ...p.shortHosts]) {
        expect(seen.get(host), `${host} claimed by ${seen.get(host)} and ${p.key}`).toBeUndefined();
        seen.set(host, p.key);
      }
    }
  });

  it('carries Amazon, Pinterest and eBay regional domains', () => {
    const hosts = (key: string) => table.byKey(key)?.hosts ?? [];
    for (const tld of ['co.uk', 'de', 'fr', 'it', 'es', 'ca', 'com.mx', 'com.br', 'co.jp', 'in', 'com.au']) {
      expect(hosts('amazon')).toContain(`amazon.${tld}`);
    }
    for (const tld of ['nl', 'se', 'pl', 'com.tr', 'ae', 'sa', 'sg', 'eg', 'com.be', 'cn']) {
      expect(hosts('amazon')).toContain(`amazon.${tld}`);
    }
    for (const tld of ['co.uk', 'de', 'fr', 'ca', 'com.au', 'es', 'it', 'jp', 'com.mx', 'co.kr', 'ru']) {
      expect(hosts('pinterest')).toContain(`pinterest.${tld}`);
    }
    for (const tld of ['co.uk', 'de', 'fr', 'com.au', 'ca']) expect(hosts('ebay')).toContain(`ebay.${tld}`);
  });
});

describe('match', () => {
  const cases = Object.entries(MATCHES).flatMap(([key, urls]) => urls.map((url) => [url, key] as const));

  it.each(cases)('%s → %s', (url, key) => {
    expect(table.match(url)?.key).toBe(key);
    expect(table.match(new URL(url))?.key).toBe(key);
  });

  it('tells YouTube Music from YouTube', () => {
    expect(table.match('https://music.youtube.com/watch?v=abc123def45')?.key).toBe('youtube_music');
    expect(table.match('https://www.youtube.com/watch?v=abc123def45')?.key).toBe('youtube');
  });

  it('keeps m.me for Messenger while stripping m. elsewhere', () => {
    expect(table.match('https://m.me/somepage')?.key).toBe('messenger');
    expect(table.match('https://m.facebook.com/zuck')?.key).toBe('facebook');
  });

  it('owns shared hosts only for the paths the platform serves', () => {
    expect(table.match('https://www.google.com/maps/@48.85,2.29,15z')?.key).toBe('google_maps');
    expect(table.match('https://www.google.com/search?q=maps')).toBeNull();
    expect(table.match('https://www.google.com/')).toBeNull();
    expect(table.match('https://goo.gl/abc123')).toBeNull();
    expect(table.match('https://itunes.apple.com/us/album/thriller/id269572838')?.key).toBe('apple_music');
    expect(table.match('https://itunes.apple.com/us/podcast/the-daily/id1200361736')?.key).toBe(
      'apple_podcasts',
    );
    expect(table.match('https://itunes.apple.com/us/app/youtube/id544007664')).toBeNull();
    expect(table.match('https://www.whatsapp.com/channel/0029VaAbc')?.key).toBe('whatsapp');
    expect(table.match('https://www.whatsapp.com/')).toBeNull();
    expect(table.match('https://www.whatsapp.com/legal/')).toBeNull();
  });

  it('matches per-customer subdomains only where the platform hands them out', () => {
    expect(table.match('https://us02web.zoom.us/j/85212345678')?.key).toBe('zoom');
    expect(table.match('https://a.b.zoom.us/j/85212345678')?.key).toBe('zoom');
    expect(table.match('https://acme.slack.com/')?.key).toBe('slack');
    expect(table.match('https://evilzoom.us/j/85212345678')).toBeNull();
    expect(table.match('https://zoom.us.evil.example/j/85212345678')).toBeNull();
    expect(table.match('https://sub.youtube.com/watch?v=dQw4w9WgXcQ')).toBeNull();
  });

  describe('wrappers are never their platform', () => {
    it.each([
      ['https://t.co/abc123', null],
      ['https://t.co/abc123?u=https://www.youtube.com/watch?v=dQw4w9WgXcQ', null],
      ['https://lnkd.in/abc123', null],
      ['https://lnkd.in/abc123?url=https://www.youtube.com/watch?v=dQw4w9WgXcQ', null],
      ['https://l.facebook.com/l.php', null],
      [
        'https://l.facebook.com/l.php?u=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DdQw4w9WgXcQ&h=AT0',
        'youtube',
      ],
      [
        'https://lm.facebook.com/l.php?u=https%3A%2F%2Fopen.spotify.com%2Ftrack%2F4cOdK2wGLETKBW3PvgPWqT',
        'spotify',
      ],
      ['https://l.instagram.com/?u=https%3A%2F%2Fwww.amazon.com%2Fdp%2FB08N5WRWNW&e=x', 'amazon'],
      ['https://l.instagram.com/?u=https%3A%2F%2Fexample.com%2F', null],
      ['https://www.google.com/url?q=https://www.twitch.tv/shroud&sa=D', 'twitch'],
      ['https://www.google.com/url?url=https://www.twitch.tv/shroud', 'twitch'],
      ['https://www.google.com/url?q=javascript:alert(1)', null],
      ['https://www.google.com/url', null],
      ['https://www.youtube.com/redirect?q=https%3A%2F%2Fexample.com%2F&v=x', null],
      [
        'https://www.youtube.com/redirect?q=https%3A%2F%2Fopen.spotify.com%2Ftrack%2F4cOdK2wGLETKBW3PvgPWqT',
        'spotify',
      ],
      ['https://www.youtube.com/redirect', null],
      ['https://www.linkedin.com/safety/go?url=https%3A%2F%2Fbsky.app%2Fprofile%2Fjay.bsky.team', 'bluesky'],
      // nested shims unwrap all the way down
      [
        `https://l.facebook.com/l.php?u=${encodeURIComponent('https://www.google.com/url?q=https://t.me/durov')}`,
        'telegram',
      ],
      // and a wrapper wrapping a code-based shortener stays unknown
      [`https://l.facebook.com/l.php?u=${encodeURIComponent('https://t.co/abc')}`, null],
    ])('%s → %s', (url, key) => {
      expect(table.match(url)?.key ?? null).toBe(key);
    });

    it('gives up on absurd nesting', () => {
      let url = 'https://t.me/durov';
      for (let i = 0; i < 6; i++) url = `https://l.facebook.com/l.php?u=${encodeURIComponent(url)}`;
      expect(table.match(url)).toBeNull();
    });
  });

  it.each([
    'https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
    'https://notyoutube.com/watch?v=dQw4w9WgXcQ',
    'https://youtube-com.evil.example/',
    'https://evil.com/?u=https://youtube.com/watch?v=dQw4w9WgXcQ',
    'https://evil.com/https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://wa.me.evil.example/15551234567',
    'https://www.youtube.co/watch?v=dQw4w9WgXcQ',
    'https://amazon.evil/dp/B08N5WRWNW',
    'https://www.spotify.com/',
    'https://youtube/watch?v=dQw4w9WgXcQ',
    'http://142.250.190.78/watch?v=dQw4w9WgXcQ',
    'http://[2607:f8b0:4005:80a::200e]/watch?v=dQw4w9WgXcQ',
    'https://user:pass@www.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com@evil.example/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com:8443/watch?v=dQw4w9WgXcQ',
    'javascript:alert(1)//www.youtube.com',
    'ftp://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'youtube://www.youtube.com/watch?v=dQw4w9WgXcQ',
    'intent://www.youtube.com/watch?v=x#Intent;scheme=https;end',
    'data:text/html,<a href="https://youtube.com">',
    'file:///etc/youtube.com',
    'www.youtube.com/watch?v=dQw4w9WgXcQ',
    '//www.youtube.com/watch?v=dQw4w9WgXcQ',
    'not a url',
    '',
    '   ',
    'https://',
    `https://www.youtube.com/watch?v=${'a'.repeat(9000)}`,
  ])('rejects %s', (url) => {
    expect(table.match(url)).toBeNull();
  });

  it('does not throw on non-string input', () => {
    expect(table.match(undefined as unknown as string)).toBeNull();
    expect(table.match(42 as unknown as string)).toBeNull();
  });
});

describe('createPlatformTable with overrides', () => {
  const base = {
    shortHosts: [],
    ios: null,
    contentTypes: ['link'],
    iosUrl: () => null,
    contentTypeOf: () => 'link',
  } satisfies Partial<Platform>;

  it('replaces a built-in by key, keeping its place, and the override takes the hosts it lists', () => {
    const myTube: Platform = {
      ...base,
      key: 'youtube',
      name: 'MyTube',
      hosts: ['youtube.com', 'tube.example'],
      android: { package: 'com.example.tube' },
    };
    const t = createPlatformTable([myTube]);
    expect(t.byKey('youtube')).toBe(myTube);
    expect(t.platforms.filter((p) => p.key === 'youtube')).toEqual([myTube]);
    expect(t.platforms.findIndex((p) => p.key === 'youtube')).toBe(0);
    expect(t.platforms.length).toBe(BUILTIN_PLATFORMS.length);
    expect(t.match('https://www.youtube.com/about')).toBe(myTube);
    expect(t.match('https://tube.example/x')).toBe(myTube);
    // the replaced built-in's other hosts are gone with it
    expect(t.match('https://youtu.be/dQw4w9WgXcQ')).toBeNull();
    // wrappers on its host stay wrappers
    expect(t.match('https://www.youtube.com/redirect?q=https://t.me/durov')?.key).toBe('telegram');
  });

  it('adds a new platform, and a host it claims wins over a built-in', () => {
    const shorty: Platform = {
      ...base,
      key: 'shorty',
      name: 'Shorty',
      hosts: ['shorty.example', 'youtu.be'],
      android: null,
    };
    const t = createPlatformTable([shorty]);
    expect(t.platforms.length).toBe(BUILTIN_PLATFORMS.length + 1);
    expect(t.platforms.at(-1)).toBe(shorty);
    expect(t.match('https://youtu.be/dQw4w9WgXcQ')).toBe(shorty);
    expect(t.match('https://www.shorty.example/a')).toBe(shorty);
    expect(t.match('https://www.youtube.com/watch?v=dQw4w9WgXcQ')?.key).toBe('youtube');
  });

  it('lets the last override of a key win', () => {
    const a: Platform = { ...base, key: 'dup', name: 'A', hosts: ['a.example'], android: null };
    const b: Platform = { ...base, key: 'dup', name: 'B', hosts: ['b.example'], android: null };
    const t = createPlatformTable([a, b]);
    expect(t.byKey('dup')).toBe(b);
    expect(t.match('https://a.example/')).toBeNull();
    expect(t.match('https://b.example/')).toBe(b);
  });

  it('leaves the default table untouched', () => {
    createPlatformTable([{ ...base, key: 'youtube', name: 'X', hosts: ['x.example'], android: null }]);
    expect(createPlatformTable().byKey('youtube')?.name).toBe('YouTube');
    expect(Object.isFrozen(BUILTIN_PLATFORMS)).toBe(true);
  });
});
