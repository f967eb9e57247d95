/** What a platform URL points at: 'video', 'short', 'channel', 'profile', 'post', 'track', 'product', ... */
export type ContentType = string;

export interface Platform {
  /** 'youtube', 'apple_music', ... (pattern [a-z0-9_]{2,32}) */
  key: string;
  /** 'YouTube' */
  name: string;
  /**
   * Lower-case hostnames, without a leading 'www.'/'m.'/'mobile.' (stripped before matching). Built-ins
   * may use a leading '*.' where the platform hands out per-customer subdomains (zoom, slack).
   */
  hosts: string[];
  /** Platform-owned short hosts (youtu.be, spoti.fi, amzn.to, pin.it ...). */
  shortHosts: string[];
  /**
   * Hosts shared with non-app content (google.com, itunes.apple.com, whatsapp.com): the platform owns a URL
   * on them only when `contentTypeOf` recognises its path. Optional; JSON platforms never have them.
   */
  scopedHosts?: string[];
  /**
   * null: no Android app, Android visitors get the web. `packageless`: build the intent without
   * `package=` and let Android pick the verified App Link handler (TikTok ships several builds).
   */
  android: { package: string; packageless?: boolean } | null;
  ios: { scheme: string; appStoreId: string | null } | null;
  contentTypes: ContentType[];
  /**
   * iOS custom-scheme URL for this web URL, or null when the app can't open that path (then the page falls
   * back to the https URL / universal link).
   */
  iosUrl: (url: URL) => string | null;
  /** The content type of this path, or null when the path is not app-openable content (e.g. /about, /legal). */
  contentTypeOf: (url: URL) => ContentType | null;
}

export interface PlatformTable {
  readonly platforms: readonly Platform[];
  byKey(key: string): Platform | undefined;
  /**
   * The platform owning this destination, or null. Wrappers (t.co, l.facebook.com, lnkd.in,
   * l.instagram.com, google.com/url, youtube.com/redirect) are NOT their platform: the target is unwrapped
   * from the query (u= / q=) when present and classified; otherwise null.
   */
  match(destination: string | URL): Platform | null;
}

export interface AppTarget {
  platformKey: string;
  platformName: string;
  contentType: ContentType | null;
  /** The https (or http) destination to fall back to, fragment kept. */
  web: string;
  /** Custom-scheme URL for in-app webviews that forward schemes (null when no iOS app or path unmappable). */
  ios: string | null;
  /** The https URL to tap for a universal link (normally === web). */
  iosUniversal: string;
  /** `intent://...#Intent;scheme=https;package=...;S.browser_fallback_url=...;end` (null when no Android app). */
  android: string | null;
  androidPackage: string | null;
  appStoreId: string | null;
  /**
   * The link itself with the `esc=1` marker (`https://go.example/abc?esc=1`): where an iOS `x-safari`
   * bounce sends Safari, so Safari's visit takes the universal-link path and counts as the link's.
   * Absent when the link's address is not known (then the bounce opens the destination).
   */
  bounce?: string;
  /** A short address of ours that sends the visitor on to the website, for pages too big to carry it twice. */
  via?: string;
}
