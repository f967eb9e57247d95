import type { InAppKey, Os } from '../../src/core/visitor.js';

/**
 * Real user agents with the classification the escape page relies on. Sources: the fixtures of
 * deeplinks.md 2.4 (inapp-spy, isbot), the preview fetchers of its section 5, vendor documentation for
 * crawlers, and current browser releases. `bot` rows are expected with os 'other' and inApp null: the
 * bot check decides before anything else.
 */
export interface UaCase {
  name: string;
  ua: string;
  os: Os;
  inApp: InAppKey | null;
  bot: boolean;
  preview: boolean;
}

function human(name: string, os: Os, inApp: InAppKey | null, ua: string): UaCase {
  return { name, ua, os, inApp, bot: false, preview: false };
}
function preview(name: string, ua: string): UaCase {
  return { name, ua, os: 'other', inApp: null, bot: true, preview: true };
}
function crawler(name: string, ua: string): UaCase {
  return { name, ua, os: 'other', inApp: null, bot: true, preview: false };
}

const IPHONE_18 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const PIXEL_WV =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.58 Mobile Safari/537.36';
const SONY_WV =
  'Mozilla/5.0 (Linux; Android 6.0.1; D6653 Build/23.5.A.0.575; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/58.0.3029.83 Mobile Safari/537.36';

export const UA_CORPUS: readonly UaCase[] = [
  // deeplinks.md 2.4, verbatim.
  human(
    'Instagram iOS',
    'ios',
    'instagram',
    `Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22F76 Instagram 393.1.0.36.70 (iPhone15,3; iOS 18_5; en_US; en; scale=3.00; 1290x2796; IABMV/1; 776538208) Safari/604.1)`,
  ),
  human(
    'Instagram Android',
    'android',
    'instagram',
    `${PIXEL_WV} Instagram 355.1.0.44.103 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 658190016)`,
  ),
  human(
    'Facebook iOS',
    'ios',
    'facebook',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22B83 [FBAN/FBIOS;FBAV/488.0.0.68.101;FBBV/658219612;FBDV/iPhone12,8;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/2;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0;IABMV/1]',
  ),
  human(
    'Facebook iOS new (MetaIAB)',
    'ios',
    'facebook',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22G100 Safari/604.1 MetaIAB Facebook',
  ),
  human(
    'Facebook Android',
    'android',
    'facebook',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.83 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/488.0.0.62.79;IABMV/1;]',
  ),
  human(
    'Threads Android',
    'android',
    'threads',
    `${PIXEL_WV} Barcelona 355.0.0.39.109 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 657318936)`,
  ),
  human(
    'TikTok iOS',
    'ios',
    'tiktok',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BytedanceWebview/d8a21c6 musical_ly_33.2.1 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US FalconTag/BDB55B46-0286-4504-847E-C8300CB9F79D',
  ),
  human(
    'TikTok iOS new',
    'ios',
    'tiktok',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1 musical_ly_41.9.0',
  ),
  human(
    'TikTok Android',
    'android',
    'tiktok',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/121.0.6167.143 Mobile Safari/537.36 musical_ly_2023303040 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/33.3.4 ByteLocale/en ByteFullLocale/en Region/US AppId/1233 Spark/1.5.0.5-alpha.2 AppVersion/33.3.4 BytedanceWebview/d8a21c6',
  ),
  human('LinkedIn iOS', 'ios', 'linkedin', `${IPHONE_18} Mobile/15E148 [LinkedInApp]/9.30.1753`),
  human(
    'Snapchat iOS',
    'ios',
    'snapchat',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3.1 Mobile/15E148 Snapchat/12.72.0.39 (like Safari/8617.2.4.10.8, panda)',
  ),
  human(
    'Twitter iOS webview',
    'ios',
    'twitter',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.3.12 (KHTML, like Gecko) Mobile/14D27 Twitter for iPhone',
  ),
  human(
    'LINE iOS',
    'ios',
    'line',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.4.6 (KHTML, like Gecko) Mobile/14D27 Safari Line/7.3.2',
  ),
  human('LINE Android', 'android', 'line', `${SONY_WV} Line/7.4.0/IAB`),
  human(
    'WeChat iOS',
    'ios',
    'wechat',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.4.6 (KHTML, like Gecko) Mobile/14D27 MicroMessenger/6.5.8 NetType/WIFI Language/zh_CN',
  ),
  human(
    'WhatsApp iOS',
    'ios',
    'whatsapp',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 26_0_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0.1 Mobile/15E148 Safari/604.1 [WAiOS/2.25.31]',
  ),
  human(
    'WhatsApp Android',
    'android',
    'whatsapp',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.7390.124 Mobile Safari/537.36 [WA4A/2.25.32.75;]',
  ),
  human('GSA iOS', 'ios', 'gsa', `${IPHONE_18} GSA/334.0.674067880 Mobile/15E148 Safari/604.1`),
  human(
    'Pinterest Android',
    'android',
    'pinterest',
    'Mozilla/5.0 (Linux; Android 9; LG-H870 Build/PKQ1.190522.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/80.0.3987.119 Mobile Safari/537.36 [Pinterest/Android]',
  ),
  human('Safari iOS', 'ios', null, `${IPHONE_18} Version/18.1 Mobile/15E148 Safari/604.1`),
  human(
    'Chrome iOS',
    'ios',
    null,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.1.50 (KHTML, like Gecko) CriOS/58.0.3029.113 Mobile/14D27 Safari/602.1',
  ),
  human(
    'Chrome Android',
    'android',
    null,
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Mobile Safari/537.36',
  ),
  // Telegram's Android webview sends a plain Chrome UA: undetectable server-side (needs window.TelegramWebview).
  human(
    'Telegram Android (plain UA)',
    'android',
    null,
    'Mozilla/5.0 (Linux; Android 14; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.6668.100 Mobile Safari/537.36',
  ),

  // More in-app browsers.
  human(
    'Instagram iOS (no Safari token)',
    'ios',
    'instagram',
    `${IPHONE_18} Mobile/22B83 Instagram 354.0.0.29.90 (iPhone12,8; iOS 18_1; en_US; en; scale=2.00; 750x1334; 654111336; IABMV/1)`,
  ),
  human(
    'Threads iOS',
    'ios',
    'threads',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Barcelona 350.0.0.21.107 (iPhone16,1; iOS 17_6; ko_KR; ko; scale=3.00; 1179x2556; 646110467) NW/3',
  ),
  human(
    'Messenger iOS',
    'ios',
    'messenger',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/461.0.0.26.106;FBBV/596640960;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]',
  ),
  human(
    'Messenger iOS (FBIOS without IABMV)',
    'ios',
    'messenger',
    `${IPHONE_18} Mobile/15E148 [FBAN/FBIOS;FBAV/482.2.0.68.110;FBBV/658316928;FBDV/iPhone12,8;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/2;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]`,
  ),
  human(
    'Messenger Android (MESSENGER)',
    'android',
    'messenger',
    `${SONY_WV} [FB_IAB/MESSENGER;FBAV/118.0.0.19.82;]`,
  ),
  human(
    'Messenger Android (Orca)',
    'android',
    'messenger',
    'Mozilla/5.0 (Linux; Android 14; SM-A546E Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/129.0.6668.81 Mobile Safari/537.36 [FB_IAB/Orca-Android;FBAV/478.0.0.41.86;]',
  ),
  human(
    'Messenger Android (FB4A without IABMV)',
    'android',
    'messenger',
    `${PIXEL_WV} [FB_IAB/FB4A;FBAV/482.0.0.71.108;]`,
  ),
  human(
    'Facebook Lite Android',
    'android',
    'facebook',
    'Mozilla/5.0 (Linux; Android 4.4.2; ASUS_T00F Build/KVT49L) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/30.0.0.0 Mobile Safari/537.36 [FBAN/EMA;FBLC/zh_TW;FBAV/42.0.0.3.64;]',
  ),
  human(
    'WeChat Android',
    'android',
    'wechat',
    `${SONY_WV} MicroMessenger/6.5.7.1041 NetType/WIFI Language/zh_TW`,
  ),
  human(
    'KakaoTalk Android',
    'android',
    'kakaotalk',
    'Mozilla/5.0 (Linux; Android 14; SM-S911N Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/129.0.6668.81 Mobile Safari/537.36 KAKAOTALK 10.9.5',
  ),
  human(
    'KakaoTalk iOS',
    'ios',
    'kakaotalk',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KAKAOTALK 10.5.5',
  ),
  human(
    'Naver Android',
    'android',
    'naver',
    'Mozilla/5.0 (Linux; Android 14; SM-S928N Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.71 Mobile Safari/537.36 NAVER(inapp; search; 2000; 12.6.3)',
  ),
  human(
    'Naver iOS',
    'ios',
    'naver',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 NAVER(inapp; search; 2000; 12.10.1)',
  ),
  human(
    'Reddit Android',
    'android',
    'reddit',
    `${PIXEL_WV} Reddit/Version 2024.41.0/Build 2102450/Android 14`,
  ),
  human(
    'Twitter Android',
    'android',
    'twitter',
    'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.163 Mobile Safari/537.36 TwitterAndroid',
  ),
  human(
    'LinkedIn Android',
    'android',
    'linkedin',
    `${PIXEL_WV} [LinkedInApp]/4.1.1010 com.linkedin.android/4.1.1010`,
  ),
  human(
    'Pinterest iOS',
    'ios',
    'pinterest',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]',
  ),
  human('GSA Android', 'android', 'gsa', `${PIXEL_WV} GSA/15.44.27.29.arm64`),
  human(
    'Telegram Android (Telegram-Android token)',
    'android',
    'telegram',
    'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/129.0.6668.100 Mobile Safari/537.36 Telegram-Android/11.2.3 (Samsung SM-S918B; Android 14; SDK 34; HIGH)',
  ),
  // A WebView UA ending in `WhatsApp/2.x A` is the in-app browser, not the bare preview fetcher.
  human(
    'WhatsApp Android (WhatsApp/ suffix)',
    'android',
    'whatsapp',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/141.0.0.0 Mobile Safari/537.36 WhatsApp/2.25.1 A',
  ),
  human(
    'Android WebView generic',
    'android',
    'other_webview',
    'Mozilla/5.0 (Linux; Android 13; SM-A536B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.107 Mobile Safari/537.36',
  ),
  human(
    'iOS WKWebView generic',
    'ios',
    'other_webview',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  ),

  // Browsers: no in-app browser.
  human(
    'Samsung Internet',
    'android',
    null,
    'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
  ),
  human(
    'Firefox Android',
    'android',
    null,
    'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0',
  ),
  human(
    'Opera Android',
    'android',
    null,
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36 OPR/85.0.0.0',
  ),
  human(
    'Edge Android',
    'android',
    null,
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0',
  ),
  human(
    'MIUI Browser',
    'android',
    null,
    'Mozilla/5.0 (Linux; U; Android 6.0.1; zh-tw; Redmi Note 3 Build/MMB29M) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/53.0.2785.146 Mobile Safari/537.36 XiaoMi/MiuiBrowser/8.5.8',
  ),
  human(
    'Chrome Android tablet (full model)',
    'android',
    null,
    'Mozilla/5.0 (Linux; Android 12; Pixel 3) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/102.0.0.0 Mobile Safari/537.36',
  ),
  human('Firefox iOS', 'ios', null, `${IPHONE_18} FxiOS/130.1  Mobile/15E148 Safari/605.1.15`),
  human(
    'Firefox iOS 155 (no Safari/ token)',
    'ios',
    null,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/155.0 Mobile/15E148 Version/26.4',
  ),
  human('Edge iOS', 'ios', null, `${IPHONE_18} EdgiOS/128.0.2739.82 Version/18.0 Mobile/15E148 Safari/604.1`),
  human('Opera iOS', 'ios', null, `${IPHONE_18} Version/18.1 Mobile/15E148 Safari/604.1 OPT/5.0.7`),
  human(
    'Yandex iOS',
    'ios',
    null,
    `${IPHONE_18} Version/18.0 YaBrowser/24.7.7.799.10 SA/3 Mobile/15E148 Safari/604.1`,
  ),
  human(
    'Safari iPad (mobile mode)',
    'ios',
    null,
    'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ),
  human(
    'Safari iPad desktop mode',
    'desktop',
    null,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  ),
  human(
    'Chrome Windows',
    'desktop',
    null,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ),
  human(
    'Edge Windows',
    'desktop',
    null,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  ),
  human(
    'Firefox Windows',
    'desktop',
    null,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  ),
  human(
    'Opera Windows',
    'desktop',
    null,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
  ),
  human(
    'Safari macOS',
    'desktop',
    null,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  ),
  human(
    'Chrome macOS',
    'desktop',
    null,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ),
  human(
    'Firefox macOS',
    'desktop',
    null,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0',
  ),
  human(
    'Chrome Linux',
    'desktop',
    null,
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ),
  human(
    'Firefox Linux',
    'desktop',
    null,
    'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  ),
  human(
    'Firefox Ubuntu',
    'desktop',
    null,
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  ),
  human(
    'Chrome ChromeOS',
    'desktop',
    null,
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ),
  human(
    'Windows Phone',
    'other',
    null,
    'Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; NOKIA; Lumia 635) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/537',
  ),
  human('Empty user agent', 'other', null, ''),

  // Link-preview fetchers (deeplinks.md section 5): every row of its table.
  preview('Facebook preview', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'),
  preview('Facebook catalog', 'facebookcatalog/1.0'),
  preview(
    'Meta external agent',
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  ),
  preview(
    'Meta external fetcher',
    'meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  ),
  preview(
    'iMessage',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
  ),
  preview('Twitterbot', 'Twitterbot/1.0'),
  preview(
    'LinkedInBot',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
  ),
  preview('Slackbot', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'),
  preview('Slack image proxy', 'Slack-ImgProxy (+https://api.slack.com/robots)'),
  preview('Discordbot', 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)'),
  preview('TelegramBot', 'TelegramBot (like TwitterBot)'),
  preview('WhatsApp fetcher Android', 'WhatsApp/2.23.20.0 A'),
  preview('WhatsApp fetcher iOS', 'WhatsApp/2.23.18.78 i'),
  preview('WhatsApp fetcher desktop', 'WhatsApp/2.2337.7 N'),
  preview('Pinterestbot', 'Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)'),
  preview('Snapchat preview', 'Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots'),
  preview('Skype / Teams preview', 'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5'),
  preview('redditbot', 'Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)'),
  preview('Bluesky Cardyb', 'Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)'),
  preview('Mastodon', 'http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)'),
  preview('LINE preview', 'facebookexternalhit/1.1;line-poker/1.0'),
  preview(
    'KakaoTalk preview',
    'facebookexternalhit/1.1; kakaotalk-scrap/1.0; +https://devtalk.kakao.com/t/scrap/33984',
  ),
  preview('Iframely', 'Iframely/1.3.1 (+https://iframely.com/docs/about)'),
  preview('Embedly', 'Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)'),
  preview('vkShare', 'Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)'),

  // Crawlers and tools: bots, not previews.
  crawler(
    'Googlebot smartphone',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  ),
  crawler('Googlebot desktop', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
  crawler(
    'Google-InspectionTool',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0;)',
  ),
  crawler(
    'Google-PageRenderer',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko; Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)) Chrome/56.0.2924.87 Safari/537.36',
  ),
  crawler(
    'Applebot',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  ),
  crawler(
    'Applebot iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  ),
  crawler('bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)'),
  crawler('curl', 'curl/8.5.0'),
  crawler('python-requests', 'python-requests/2.32.3'),
];
