import { describe, expect, it } from 'vitest';
import { appTargetFor, createPlatformTable, instagramMediaId } from '../../src/core/platforms/index.js';

const table = createPlatformTable();

/** [destination, platform key, content type, exact iOS URL or null] */
const IOS: [string, string, string, string | null][] = [
  // youtube: lossless, youtu.be becomes watch?v=
  [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
    'youtube',
    'video',
    'youtube://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
  ],
  [
    'https://youtu.be/dQw4w9WgXcQ?t=42&si=abc',
    'youtube',
    'video',
    'youtube://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42&si=abc',
  ],
  [
    'https://m.youtube.com/shorts/abcdefghijk',
    'youtube',
    'short',
    'youtube://www.youtube.com/shorts/abcdefghijk',
  ],
  ['https://www.youtube.com/@mkbhd', 'youtube', 'channel', 'youtube://www.youtube.com/@mkbhd'],
  ['https://www.youtube.com/@mkbhd/videos', 'youtube', 'channel', 'youtube://www.youtube.com/@mkbhd/videos'],
  [
    'https://www.youtube.com/channel/UCBJycsmduvYEL83R_U4JriQ',
    'youtube',
    'channel',
    'youtube://www.youtube.com/channel/UCBJycsmduvYEL83R_U4JriQ',
  ],
  [
    'https://www.youtube.com/playlist?list=PL123',
    'youtube',
    'playlist',
    'youtube://www.youtube.com/playlist?list=PL123',
  ],
  [
    'https://www.youtube.com/live/abcdefghijk',
    'youtube',
    'live',
    'youtube://www.youtube.com/live/abcdefghijk',
  ],
  ['https://www.youtube.com/', 'youtube', 'home', 'youtube://www.youtube.com/'],
  // youtube_music
  [
    'https://music.youtube.com/watch?v=abc123def45&list=RDAMVM',
    'youtube_music',
    'track',
    'youtubemusic://music.youtube.com/watch?v=abc123def45&list=RDAMVM',
  ],
  [
    'https://music.youtube.com/playlist?list=OLAK5uy_abc',
    'youtube_music',
    'album',
    'youtubemusic://music.youtube.com/playlist?list=OLAK5uy_abc',
  ],
  // instagram
  ['https://www.instagram.com/natgeo/', 'instagram', 'profile', 'instagram://user?username=natgeo'],
  ['https://www.instagram.com/_u/natgeo', 'instagram', 'profile', 'instagram://user?username=natgeo'],
  ['https://www.instagram.com/p/BAAAA/', 'instagram', 'post', 'instagram://media?id=16777216'],
  ['https://instagr.am/p/BAAAA', 'instagram', 'post', 'instagram://media?id=16777216'],
  ['https://www.instagram.com/reel/BAAAB/', 'instagram', 'reel', 'instagram://media?id=16777217'],
  ['https://www.instagram.com/natgeo/p/BAAA_/', 'instagram', 'post', 'instagram://media?id=16777279'],
  ['https://www.instagram.com/p/CuE0aQ7LeKqAbCdEfGhIjKlMnOpQ/', 'instagram', 'post', null],
  ['https://www.instagram.com/stories/natgeo/3123/', 'instagram', 'story', null],
  ['https://www.instagram.com/explore/tags/caf%C3%A9/', 'instagram', 'tag', 'instagram://tag?name=caf%C3%A9'],
  [
    'https://www.instagram.com/explore/locations/213385402/',
    'instagram',
    'location',
    'instagram://location?id=213385402',
  ],
  ['https://www.instagram.com/', 'instagram', 'home', 'instagram://app'],
  ['https://ig.me/m/natgeo', 'instagram', 'chat', null],
  // tiktok
  [
    'https://www.tiktok.com/@khaby.lame/video/7234567890123456789',
    'tiktok',
    'video',
    'snssdk1233://aweme/detail/7234567890123456789',
  ],
  ['https://www.tiktok.com/@khaby.lame', 'tiktok', 'profile', null],
  ['https://vm.tiktok.com/ZMabc123/', 'tiktok', 'share', null],
  // x
  ['https://x.com/jack/status/20', 'x', 'post', 'twitter://status?id=20'],
  ['https://mobile.twitter.com/jack/status/20/photo/1', 'x', 'post', 'twitter://status?id=20'],
  ['https://x.com/i/web/status/20', 'x', 'post', 'twitter://status?id=20'],
  ['https://twitter.com/jack', 'x', 'profile', 'twitter://user?screen_name=jack'],
  ['https://x.com/hashtag/NodeJS', 'x', 'tag', 'twitter://search?query=%23NodeJS'],
  ['https://x.com/', 'x', 'home', 'twitter://timeline'],
  // facebook: facewebmodal with the canonical www host
  [
    'https://www.facebook.com/zuck',
    'facebook',
    'profile',
    'fb://facewebmodal/f?href=https%3A%2F%2Fwww.facebook.com%2Fzuck',
  ],
  [
    'https://m.facebook.com/profile.php?id=4',
    'facebook',
    'profile',
    'fb://facewebmodal/f?href=https%3A%2F%2Fwww.facebook.com%2Fprofile.php%3Fid%3D4',
  ],
  [
    'https://www.facebook.com/watch/?v=123',
    'facebook',
    'video',
    'fb://facewebmodal/f?href=https%3A%2F%2Fwww.facebook.com%2Fwatch%2F%3Fv%3D123',
  ],
  [
    'https://fb.watch/abc123/',
    'facebook',
    'video',
    'fb://facewebmodal/f?href=https%3A%2F%2Ffb.watch%2Fabc123%2F',
  ],
  [
    'https://www.facebook.com/groups/123',
    'facebook',
    'group',
    'fb://facewebmodal/f?href=https%3A%2F%2Fwww.facebook.com%2Fgroups%2F123',
  ],
  [
    'https://www.facebook.com/share/p/1AbCd/',
    'facebook',
    'post',
    'fb://facewebmodal/f?href=https%3A%2F%2Fwww.facebook.com%2Fshare%2Fp%2F1AbCd%2F',
  ],
  // messenger
  ['https://m.me/12345', 'messenger', 'chat', 'fb-messenger://user-thread/12345'],
  ['https://www.messenger.com/t/12345', 'messenger', 'chat', 'fb-messenger://user-thread/12345'],
  ['https://m.me/somepage', 'messenger', 'chat', null],
  // threads
  ['https://www.threads.net/@zuck', 'threads', 'profile', 'barcelona://user?username=zuck'],
  [
    'https://www.threads.com/@zuck/post/C8abcdEFgh',
    'threads',
    'post',
    'barcelona://media?shortcode=C8abcdEFgh',
  ],
  // whatsapp
  [
    'https://wa.me/15551234567?text=Hi%20there',
    'whatsapp',
    'chat',
    'whatsapp://send?phone=15551234567&text=Hi%20there',
  ],
  ['https://wa.me/+15551234567', 'whatsapp', 'chat', 'whatsapp://send?phone=15551234567'],
  [
    'https://api.whatsapp.com/send?phone=%2B1%20555%20123%204567&text=a%26b',
    'whatsapp',
    'chat',
    'whatsapp://send?phone=15551234567&text=a%26b',
  ],
  ['https://wa.me/?text=share%20me', 'whatsapp', 'share', 'whatsapp://send?text=share%20me'],
  ['https://chat.whatsapp.com/AbCdEf123', 'whatsapp', 'invite', null],
  ['https://www.whatsapp.com/channel/0029VaAbc', 'whatsapp', 'channel', null],
  // telegram
  ['https://t.me/durov', 'telegram', 'profile', 'tg://resolve?domain=durov'],
  ['https://t.me/durov/123', 'telegram', 'post', 'tg://resolve?domain=durov&post=123'],
  ['https://t.me/s/durov', 'telegram', 'channel', 'tg://resolve?domain=durov'],
  ['https://telegram.me/mybot?start=ref_42', 'telegram', 'profile', 'tg://resolve?domain=mybot&start=ref_42'],
  ['https://t.me/+AbCdEfGh123', 'telegram', 'invite', 'tg://join?invite=AbCdEfGh123'],
  ['https://t.me/joinchat/AbCdEf', 'telegram', 'invite', 'tg://join?invite=AbCdEf'],
  ['https://t.me/+15551234567', 'telegram', 'chat', 'tg://resolve?phone=15551234567'],
  ['https://t.me/c/1234567/89', 'telegram', 'post', 'tg://privatepost?channel=1234567&post=89'],
  ['https://t.me/addstickers/Animals', 'telegram', 'stickers', 'tg://addstickers?set=Animals'],
  // snapchat
  ['https://www.snapchat.com/add/teamsnapchat', 'snapchat', 'profile', 'snapchat://add/teamsnapchat'],
  ['https://snapchat.com/@teamsnapchat', 'snapchat', 'profile', 'snapchat://add/teamsnapchat'],
  ['https://t.snapchat.com/abcd', 'snapchat', 'share', null],
  // pinterest
  ['https://www.pinterest.com/pin/123456789/', 'pinterest', 'pin', 'pinterest://pin/123456789'],
  ['https://www.pinterest.co.uk/pin/some-title--123456/', 'pinterest', 'pin', 'pinterest://pin/123456'],
  ['https://pinterest.de/marthastewart/', 'pinterest', 'profile', 'pinterest://user/marthastewart'],
  [
    'https://www.pinterest.com/marthastewart/recipes/',
    'pinterest',
    'board',
    'pinterest://board/marthastewart/recipes',
  ],
  [
    'https://www.pinterest.com/search/pins/?q=cat%20cafe',
    'pinterest',
    'search',
    'pinterest://search/pins?q=cat%20cafe',
  ],
  ['https://pin.it/abc123', 'pinterest', 'share', null],
  // linkedin
  ['https://www.linkedin.com/in/williamhgates/', 'linkedin', 'profile', 'linkedin://in/williamhgates'],
  ['https://www.linkedin.com/company/microsoft', 'linkedin', 'company', 'linkedin://company/microsoft'],
  ['https://www.linkedin.com/posts/foo_activity-123', 'linkedin', 'post', null],
  ['https://www.linkedin.com/feed/update/urn:li:activity:123/', 'linkedin', 'post', null],
  // reddit
  [
    'https://www.reddit.com/r/typescript/comments/abc123/some_title/',
    'reddit',
    'post',
    'reddit://reddit.com/r/typescript/comments/abc123/some_title/',
  ],
  ['https://old.reddit.com/r/typescript', 'reddit', 'community', 'reddit://reddit.com/r/typescript'],
  ['https://redd.it/abc123', 'reddit', 'post', 'reddit://reddit.com/comments/abc123'],
  ['https://www.reddit.com/user/spez', 'reddit', 'profile', 'reddit://reddit.com/user/spez'],
  [
    'https://www.reddit.com/r/typescript/s/AbCdEf',
    'reddit',
    'share',
    'reddit://reddit.com/r/typescript/s/AbCdEf',
  ],
  // twitch
  ['https://www.twitch.tv/Shroud', 'twitch', 'channel', 'twitch://stream/shroud'],
  ['https://www.twitch.tv/videos/123456', 'twitch', 'video', null],
  ['https://www.twitch.tv/shroud/clip/FunnyClip-abc', 'twitch', 'clip', null],
  ['https://clips.twitch.tv/FunnyClipSlug', 'twitch', 'clip', null],
  // discord
  ['https://discord.gg/typescript', 'discord', 'invite', null],
  ['https://discord.com/channels/123/456', 'discord', 'channel', null],
  // spotify
  [
    'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT?si=abc',
    'spotify',
    'track',
    'spotify:track:4cOdK2wGLETKBW3PvgPWqT',
  ],
  [
    'https://open.spotify.com/intl-de/album/1DFixLWuPkv3KT3TnV35m3',
    'spotify',
    'album',
    'spotify:album:1DFixLWuPkv3KT3TnV35m3',
  ],
  [
    'https://open.spotify.com/artist/0OdUWJ0sBjDrqHygGUXeCF',
    'spotify',
    'artist',
    'spotify:artist:0OdUWJ0sBjDrqHygGUXeCF',
  ],
  [
    'https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M',
    'spotify',
    'playlist',
    'spotify:playlist:37i9dQZF1DXcBWIGoYBM5M',
  ],
  [
    'https://open.spotify.com/episode/512ojhOuo1ktJprKbVcKyQ',
    'spotify',
    'episode',
    'spotify:episode:512ojhOuo1ktJprKbVcKyQ',
  ],
  [
    'https://open.spotify.com/show/4rOoJ6Egrf8K2IrywzwOMk',
    'spotify',
    'show',
    'spotify:show:4rOoJ6Egrf8K2IrywzwOMk',
  ],
  ['https://open.spotify.com/user/spotify', 'spotify', 'profile', 'spotify:user:spotify'],
  [
    'https://open.spotify.com/user/spotify/playlist/37i9dQZF1DXcBWIGoYBM5M',
    'spotify',
    'playlist',
    'spotify:playlist:37i9dQZF1DXcBWIGoYBM5M',
  ],
  ['https://spotify.link/abc', 'spotify', 'share', null],
  // apple_music
  [
    'https://music.apple.com/us/album/thriller/269572838?i=269573364',
    'apple_music',
    'track',
    'music://music.apple.com/us/album/thriller/269572838?i=269573364',
  ],
  [
    'https://music.apple.com/us/album/thriller/269572838',
    'apple_music',
    'album',
    'music://music.apple.com/us/album/thriller/269572838',
  ],
  [
    'https://music.apple.com/gb/playlist/todays-hits/pl.f4d106fed2bd41149aaacabb233eb5eb',
    'apple_music',
    'playlist',
    'music://music.apple.com/gb/playlist/todays-hits/pl.f4d106fed2bd41149aaacabb233eb5eb',
  ],
  [
    'https://music.apple.com/us/artist/michael-jackson/32940',
    'apple_music',
    'artist',
    'music://music.apple.com/us/artist/michael-jackson/32940',
  ],
  [
    'https://itunes.apple.com/us/album/thriller/id269572838',
    'apple_music',
    'album',
    'music://music.apple.com/us/album/thriller/id269572838',
  ],
  // soundcloud: numeric ids only in the scheme, so the universal link does it
  ['https://soundcloud.com/forss/flickermood', 'soundcloud', 'track', null],
  ['https://soundcloud.com/forss', 'soundcloud', 'profile', null],
  ['https://soundcloud.com/forss/sets/soulhack', 'soundcloud', 'playlist', null],
  ['https://on.soundcloud.com/abc', 'soundcloud', 'share', null],
  // amazon: lossless, tag kept
  [
    'https://www.amazon.com/dp/B08N5WRWNW?tag=creator-20',
    'amazon',
    'product',
    'com.amazon.mobile.shopping.web://www.amazon.com/dp/B08N5WRWNW?tag=creator-20',
  ],
  [
    'https://www.amazon.co.uk/Echo-Dot/dp/B08N5WRWNW/ref=sr_1_1?tag=x-21&th=1',
    'amazon',
    'product',
    'com.amazon.mobile.shopping.web://www.amazon.co.uk/Echo-Dot/dp/B08N5WRWNW/ref=sr_1_1?tag=x-21&th=1',
  ],
  [
    'https://www.amazon.de/gp/product/B08N5WRWNW',
    'amazon',
    'product',
    'com.amazon.mobile.shopping.web://www.amazon.de/gp/product/B08N5WRWNW',
  ],
  [
    'https://www.amazon.com/shop/influencer?tag=a-20',
    'amazon',
    'storefront',
    'com.amazon.mobile.shopping.web://www.amazon.com/shop/influencer?tag=a-20',
  ],
  ['https://amzn.to/3abcDEF', 'amazon', 'share', null],
  // patreon
  ['https://www.patreon.com/creator', 'patreon', 'profile', null],
  ['https://www.patreon.com/c/creator', 'patreon', 'profile', null],
  ['https://www.patreon.com/posts/some-post-12345', 'patreon', 'post', null],
  // bluesky
  ['https://bsky.app/profile/jay.bsky.team', 'bluesky', 'profile', 'bluesky://profile/jay.bsky.team'],
  [
    'https://bsky.app/profile/jay.bsky.team/post/3k2abc',
    'bluesky',
    'post',
    'bluesky://profile/jay.bsky.team/post/3k2abc',
  ],
  ['https://go.bsky.app/abc', 'bluesky', 'share', null],
  // extras
  ['https://vimeo.com/76979871', 'vimeo', 'video', null],
  ['https://player.vimeo.com/video/76979871', 'vimeo', 'video', null],
  [
    'https://www.google.com/maps/place/Eiffel+Tower/@48.8583701,2.2944813,17z',
    'google_maps',
    'place',
    'comgooglemaps://?q=Eiffel%20Tower&center=48.8583701,2.2944813',
  ],
  ['https://maps.google.com/?q=coffee', 'google_maps', 'search', 'comgooglemaps://?q=coffee'],
  [
    'https://www.google.com/maps/search/?api=1&query=pizza%20seattle',
    'google_maps',
    'search',
    'comgooglemaps://?q=pizza%20seattle',
  ],
  [
    'https://www.google.com/maps/dir/?api=1&destination=Pike+Place+Market',
    'google_maps',
    'directions',
    'comgooglemaps://?daddr=Pike%20Place%20Market',
  ],
  ['https://www.google.com/maps/@48.85,2.29,15z', 'google_maps', 'map', 'comgooglemaps://?center=48.85,2.29'],
  ['https://maps.app.goo.gl/abc123', 'google_maps', 'share', null],
  ['https://www.etsy.com/listing/123456789/handmade-mug', 'etsy', 'product', null],
  ['https://www.etsy.com/uk/listing/123456789/handmade-mug', 'etsy', 'product', null],
  ['https://www.etsy.com/shop/CraftyShop', 'etsy', 'shop', null],
  ['https://www.ebay.com/itm/123456789012', 'ebay', 'product', null],
  ['https://www.ebay.co.uk/itm/vintage-lamp/123456789012', 'ebay', 'product', null],
  ['https://www.ebay.com/usr/seller', 'ebay', 'profile', null],
  ['https://www.deezer.com/en/track/3135556', 'deezer', 'track', null],
  ['https://www.deezer.com/album/302127', 'deezer', 'album', null],
  [
    'https://podcasts.apple.com/us/podcast/the-daily/id1200361736',
    'apple_podcasts',
    'show',
    'podcasts://podcasts.apple.com/us/podcast/the-daily/id1200361736',
  ],
  [
    'https://podcasts.apple.com/us/podcast/the-daily/id1200361736?i=1000600000000',
    'apple_podcasts',
    'episode',
    'podcasts://podcasts.apple.com/us/podcast/the-daily/id1200361736?i=1000600000000',
  ],
  ['https://www.netflix.com/title/80057281', 'netflix', 'title', 'nflx://www.netflix.com/title/80057281'],
  ['https://www.netflix.com/gb/title/80057281', 'netflix', 'title', 'nflx://www.netflix.com/title/80057281'],
  ['https://www.netflix.com/watch/80057281', 'netflix', 'video', 'nflx://www.netflix.com/watch/80057281'],
  [
    'https://us02web.zoom.us/j/85212345678?pwd=abcDEF.1',
    'zoom',
    'meeting',
    'zoomus://zoom.us/join?confno=85212345678&pwd=abcDEF.1',
  ],
  ['https://zoom.us/my/janedoe', 'zoom', 'meeting', null],
  [
    'https://app.slack.com/client/T01234567/C01234567',
    'slack',
    'channel',
    'slack://channel?team=T01234567&id=C01234567',
  ],
  ['https://app.slack.com/client/T01234567', 'slack', 'workspace', 'slack://open?team=T01234567'],
  ['https://acme.slack.com/archives/C01234567/p1700000000123456', 'slack', 'message', null],
  ['https://join.slack.com/t/acme/shared_invite/zt-abc', 'slack', 'invite', null],
];

describe('content types and iOS scheme URLs', () => {
  it.each(IOS)('%s → %s %s %s', (url, key, type, ios) => {
    const platform = table.match(url);
    expect(platform?.key).toBe(key);
    expect(platform?.contentTypeOf(new URL(url))).toBe(type);
    expect(platform?.iosUrl(new URL(url))).toBe(ios);
    const target = appTargetFor(table, url);
    expect(target?.contentType).toBe(type);
    expect(target?.ios).toBe(ios);
    expect(platform?.contentTypes).toContain(type);
  });

  it('covers every built-in at least once', () => {
    const keys = new Set(IOS.map(([, key]) => key));
    for (const platform of table.platforms) expect(keys).toContain(platform.key);
  });
});

describe('instagramMediaId', () => {
  /** An independent decoding: left-pad with 'A' (zero) to whole bytes, then read the bytes as hex. */
  function viaBuffer(code: string): string {
    const padded = code.padStart(Math.ceil(code.length / 4) * 4, 'A');
    return BigInt(`0x${Buffer.from(padded, 'base64url').toString('hex')}`).toString();
  }

  it.each(['CuE0aQ7LeKq', 'B-_xyZ09', 'C8abcdEFgh', 'DAbc-_12345', '_________', 'BAAAA'])('%s', (code) => {
    expect(instagramMediaId(code)).toBe(viaBuffer(code));
  });

  it('goes beyond 2^53 without losing digits', () => {
    const id = instagramMediaId('CuE0aQ7LeKq');
    expect(id && BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(instagramMediaId('A')).toBe('0');
    expect(instagramMediaId('BA')).toBe('64');
  });

  it('refuses long private codes and foreign characters', () => {
    expect(instagramMediaId('CuE0aQ7LeKqAbCdEfGhIjKlMnOpQ')).toBeNull();
    expect(instagramMediaId('abc+/')).toBeNull();
    expect(instagramMediaId('')).toBeNull();
  });
});
