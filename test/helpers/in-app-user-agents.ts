import type { InAppKey } from '../../src/core/visitor.js';

/**
 * Real in-app browser user agents, each from a public source cited beside it (the URL of the fixture
 * file or issue that published it, pinned to the commit read). Used by the detection tests and by the
 * Chromium test of every escape-matrix cell.
 */
export interface InAppFixture {
  inApp: InAppKey;
  os: 'ios' | 'android';
  ua: string;
  source: string;
}

const INAPP_SPY =
  'https://github.com/shalanah/inapp-spy/blob/5a9065efd49159a94497182ef16aa91f64d229c8/src/tests/mobile.ts';
const UA_PARSER =
  'https://github.com/faisalman/ua-parser-js/blob/18d39b53dd803710cb8e76856d18c1dcf7533d11/test/data/ua/browser/browser-all.json';
const UA_PARSER_CPU =
  'https://github.com/faisalman/ua-parser-js/blob/18d39b53dd803710cb8e76856d18c1dcf7533d11/test/data/ua/cpu/cpu-all.json';
const UA_PARSER_HUAWEI =
  'https://github.com/faisalman/ua-parser-js/blob/18d39b53dd803710cb8e76856d18c1dcf7533d11/test/data/ua/device/huawei.json';
const UAP_CORE_THREADS = 'https://github.com/ua-parser/uap-core/issues/651';
const DEBUGGER_ISSUE_11 = 'https://github.com/shalanah/inapp-debugger/issues/11';

const f = (inApp: InAppKey, os: InAppFixture['os'], source: string, ua: string): InAppFixture => ({
  inApp,
  os,
  ua,
  source,
});

export const IN_APP_FIXTURES: readonly InAppFixture[] = [
  f(
    'instagram',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22F76 Instagram 393.1.0.36.70 (iPhone15,3; iOS 18_5; en_US; en; scale=3.00; 1290x2796; IABMV/1; 776538208) Safari/604.1)',
  ),
  f(
    'instagram',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 14_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 142.0.0.22.109 (iPhone12,5; iOS 14_1; en_US; en-US; scale=3.00; 1242x2688; 214888322) NW/1',
  ),
  f(
    'instagram',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.58 Mobile Safari/537.36 Instagram 355.1.0.44.103 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 658190016)',
  ),
  f(
    'instagram',
    'android',
    DEBUGGER_ISSUE_11,
    'Mozilla/5.0 (Linux; Android 11; Mi A3 Build/RKQ1.200903.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.14 Mobile Safari/537.36 Instagram 355.0.0.37.103 Android (30/11; 320dpi; 720x1411; Xiaomi; Mi A3; laurel_sprout; qcom; pt_BR; 657300861)',
  ),
  f(
    'facebook',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22B83 [FBAN/FBIOS;FBAV/488.0.0.68.101;FBBV/658219612;FBDV/iPhone12,8;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/2;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0;IABMV/1]',
  ),
  f(
    'facebook',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22G100 Safari/604.1 MetaIAB Facebook',
  ),
  f(
    'facebook',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.83 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/488.0.0.62.79;IABMV/1;]',
  ),
  f(
    'messenger',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/482.2.0.68.110;FBBV/658316928;FBDV/iPhone12,8;FBMD/iPhone;FBSN/iOS;FBSV/18.1;FBSS/2;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]',
  ),
  f(
    'messenger',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.58 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/482.0.0.71.108;]',
  ),
  f(
    'threads',
    'ios',
    UAP_CORE_THREADS,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/23C55 Barcelona 414.1.0.26.79 (iPhone14,7; iOS 26_2; pt_BR; pt; scale=3.00; 960x2079; IABMV/1; 870367664)',
  ),
  f(
    'threads',
    'android',
    UAP_CORE_THREADS,
    'Mozilla/5.0 (Linux; Android 16; SM-S911B Build/BP2A.250605.031.A3; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/144.0.7559.59 Mobile Safari/537.36 Barcelona 415.0.0.36.77 Android (36/16; 480dpi; 1080x2340; samsung; SM-S911B; dm1q; qcom; en_US; 874515858)',
  ),
  f(
    'threads',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.58 Mobile Safari/537.36 Barcelona 355.0.0.39.109 Android (34/14; 420dpi; 1080x2205; Google/google; Pixel 8; shiba; shiba; en_US; 657318936)',
  ),
  f(
    'tiktok',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1 musical_ly_41.9.0',
  ),
  f(
    'tiktok',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1 trill_43.0.0 BytedanceWebview/d8a21c6',
  ),
  f(
    'tiktok',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240105.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/121.0.6167.143 Mobile Safari/537.36 musical_ly_2023303040 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/33.3.4 ByteLocale/en ByteFullLocale/en Region/US AppId/1233 Spark/1.5.0.5-alpha.2 AppVersion/33.3.4 BytedanceWebview/d8a21c6',
  ),
  f(
    'tiktok',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 11; 21061119AG Build/RP1A.200720.011; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/92.0.4515.131 Mobile Safari/537.36 trill_2022109040 JsSdk/1.0 NetType/MOBILE Channel/googleplay AppName/musical_ly app_version/21.9.4 ByteLocale/ru-RU ByteFullLocale/ru-RU Region/KG BytedanceWebview/d8a21c6',
  ),
  f(
    'twitter',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.3.12 (KHTML, like Gecko) Mobile/14D27 Twitter for iPhone',
  ),
  f(
    'twitter',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 13; CPH2531 Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/123.0.6312.120 Mobile Safari/537.36 TwitterAndroid',
  ),
  f(
    'linkedin',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 15_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]',
  ),
  f(
    'snapchat',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3.1 Mobile/15E148 Snapchat/12.72.0.39 (like Safari/8617.2.4.10.8, panda)',
  ),
  f(
    'snapchat',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_0_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Snapchat/12.33.0.36 (like Safari/8614.1.25.0.31, panda)',
  ),
  f(
    'pinterest',
    'android',
    UA_PARSER_HUAWEI,
    'Mozilla/5.0 (Linux; Android 7.0; MON-W19 Build/HUAWEIMON-W19; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/63.0.3239.111 Mobile Safari/537.36 [Pinterest/Android]',
  ),
  f(
    'reddit',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240905.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.58 Mobile Safari/537.36 Reddit/Version 2024.41.0/Build 2102450/Android 14',
  ),
  f(
    'line',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.4.6 (KHTML, like Gecko) Mobile/14D27 Safari Line/7.3.2',
  ),
  f(
    'line',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 5.0; ASUS_Z00AD Build/LRX21V; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/51.0.2704.81 Mobile Safari/537.36 Line/6.5.1/IAB',
  ),
  f(
    'wechat',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.4.6 (KHTML, like Gecko) Mobile/14D27 MicroMessenger/6.5.8 NetType/WIFI Language/zh_CN',
  ),
  f(
    'wechat',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; U; Android 5.1; zh-cn; Lenovo K50-t5 Build/LMY47D) AppleWebKit/533.1 (KHTML, like Gecko)Version/4.0 MQQBrowser/5.4 TBS/025478 Mobile Safari/533.1 MicroMessenger/6.3.5.50_r1573191.640 NetType/WIFI Language/zh_CN',
  ),
  f(
    'whatsapp',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 26_0_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0.1 Mobile/15E148 Safari/604.1 [WAiOS/2.25.31]',
  ),
  f(
    'whatsapp',
    'android',
    INAPP_SPY,
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.7390.124 Mobile Safari/537.36 [WA4A/2.25.32.75;]',
  ),
  f(
    'gsa',
    'ios',
    INAPP_SPY,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/334.0.674067880 Mobile/15E148 Safari/604.1',
  ),
  f(
    'gsa',
    'android',
    UA_PARSER_CPU,
    'Mozilla/5.0 (Linux; Android 6.0; M5s Build/MRA58K; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/44.0.2403.147 Mobile Safari/537.36 GSA/12.40.17.23.arm64',
  ),
  f(
    'kakaotalk',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU; iPhone OS 15_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BizWebView KAKAOTALK 9.7.6',
  ),
  f(
    'kakaotalk',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 12; SM-G988N Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.79 Mobile Safari/537.36;KAKAOTALK 2409760',
  ),
  f(
    'naver',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 13_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Mobile/15E148 Safari/605.1 NAVER(inapp; search; 720; 10.25.0; 11PRO)',
  ),
  f(
    'naver',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 12; SM-G988N Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/90.0.4430.232 Whale/1.0.0.0 Crosswalk/26.90.3.21 Mobile Safari/537.36 NAVER(inapp; search; 1010; 11.11.2)',
  ),
  f(
    'daum',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15 Mobile/15E148 DaumApps/7.5.1 DaumDevice/mobile',
  ),
  f(
    'daum',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 11; SM-G970N Build/RP1A.200720.012; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/83.0.4103.106 Mobile Safari/537.36 DaumApps/7.5.0 DaumDevice/mobile',
  ),
  f(
    'zalo',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 13_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Zalo/20.05.01 Mobile/15E148',
  ),
  f(
    'zalo',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 10; Vsmart Live Build/QKQ1.190918.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 Mobile Safari/537.36 Zalo/20.04.02.r1',
  ),
  f(
    'weibo',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/16A366 Weibo (iPhone8,2__weibo__8.9.3__iphone__os12.0)',
  ),
  f(
    'qq',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 10_0_2 like Mac OS X) AppleWebKit/602.1.50 (KHTML, like Gecko) Mobile/14A456 QQ/6.5.3.410 V1_IPH_SQ_6.5.3_1_APP_A Pixel/1080 Core/UIWebView NetType/WIFI Mem/26',
  ),
  f(
    'qq',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 6.0; PRO 6 Build/MRA58K) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/37.0.0.0 Mobile MQQBrowser/6.8 TBS/036824 Safari/537.36 V1_AND_SQ_6.5.8_422_YYB_D PA QQ/6.5.8.2910 NetType/WIFI WebP/0.3.0 Pixel/1080',
  ),
  f(
    'baidu',
    'ios',
    UA_PARSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 12_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/16C101 main%2F1.0 baiduboxapp/11.12.0.18 (Baidu; P2 12.1.2)',
  ),
  f(
    'baidu',
    'android',
    UA_PARSER,
    'Mozilla/5.0 (Linux; Android 8.1.0; BKK-AL10 Build/HONORBKK-AL10; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/63.0.3239.83 Mobile Safari/537.36 T7/11.11 baiduboxapp/11.11.0.0 (Baidu; P1 8.1.0)',
  ),
];

/** Browsers (and apps that open links in a real browser view) the detector must leave alone. */
export const BROWSER_FIXTURES: readonly {
  name: string;
  os: 'ios' | 'android' | 'desktop';
  ua: string;
  source: string;
}[] = [
  {
    name: 'Safari iOS 18',
    os: 'ios',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  },
  {
    name: 'Safari iOS 26.4 (also SFSafariViewController: Slack, Discord, X)',
    os: 'ios',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.4 Mobile/15E148 Safari/604.1',
  },
  {
    name: 'Chrome iOS',
    os: 'ios',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.1.50 (KHTML, like Gecko) CriOS/58.0.3029.113 Mobile/14D27 Safari/602.1',
  },
  {
    name: 'Firefox iOS',
    os: 'ios',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/130.1  Mobile/15E148 Safari/605.1.15',
  },
  {
    name: 'Edge iOS',
    os: 'ios',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/128.0.2739.82 Version/18.0 Mobile/15E148 Safari/604.1',
  },
  {
    name: 'Chrome Android (reduced UA)',
    os: 'android',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Mobile Safari/537.36',
  },
  {
    name: 'Chrome Android (Sony)',
    os: 'android',
    source: INAPP_SPY,
    ua: 'Mozilla/5.0 (Linux; Android 6.0.1; D6653 Build/23.5.A.0.575) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.83 Mobile Safari/537.36',
  },
  {
    name: 'QQ Browser Android',
    os: 'android',
    source: UA_PARSER,
    ua: 'Mozilla/5.0 (Linux; U; Android 9; zh-cn; vivo X21 Build/PKQ1.180819.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/66.0.3359.126 MQQBrowser/9.9 Mobile Safari/537.36',
  },
  {
    name: 'Firefox Android',
    os: 'android',
    source: UA_PARSER,
    ua: 'Mozilla/5.0 (Android 5.0; Mobile; rv:41.0) Gecko/41.0 Firefox/41.0',
  },
  {
    name: 'Chrome Windows',
    os: 'desktop',
    source: UA_PARSER,
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/113.0.0.0 Safari/537.36 Vivaldi/6.0.2979.18',
  },
  {
    name: 'QQ Browser Lite macOS',
    os: 'desktop',
    source: UA_PARSER,
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_1) AppleWebKit/602.2.14 (KHTML, like Gecko) Version/10.0.1 Safari/602.2.14 QQBrowserLite/1.1.0',
  },
];
