/** The words a visit is classified in: its OS and the app whose in-app browser made it. */

export type Os = 'ios' | 'android' | 'desktop' | 'other';
export type InAppKey =
  | 'instagram'
  | 'facebook'
  | 'messenger'
  | 'threads'
  | 'tiktok'
  | 'twitter'
  | 'linkedin'
  | 'snapchat'
  | 'pinterest'
  | 'reddit'
  | 'line'
  | 'wechat'
  | 'whatsapp'
  | 'telegram'
  | 'gsa'
  | 'kakaotalk'
  | 'naver'
  | 'daum'
  | 'zalo'
  | 'weibo'
  | 'qq'
  | 'baidu'
  | 'other_webview';

/** Every in-app browser key, in the order the compatibility table lists them. */
export const IN_APP_KEYS: readonly InAppKey[] = [
  'instagram',
  'facebook',
  'messenger',
  'threads',
  'tiktok',
  'twitter',
  'linkedin',
  'snapchat',
  'pinterest',
  'reddit',
  'telegram',
  'line',
  'wechat',
  'whatsapp',
  'gsa',
  'kakaotalk',
  'naver',
  'daum',
  'zalo',
  'weibo',
  'qq',
  'baidu',
  'other_webview',
];
