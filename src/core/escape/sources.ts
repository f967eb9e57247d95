/** The public sources the built-in cells cite, with the date each last confirmed what the cells say. */
export const SOURCES = {
  /** inapp-debugger's device tests, Android table (intent escape per app), last updated 2024-11-03. */
  debuggerAndroid: {
    url: 'https://github.com/shalanah/inapp-debugger/blob/main/README.md#android',
    date: '2024-11-03',
  },
  /** inapp-debugger's device tests, iOS table (x-safari and other-browser schemes per app), 2024-10-16. */
  debuggerIos: {
    url: 'https://github.com/shalanah/inapp-debugger/blob/main/README.md#ios',
    date: '2024-10-16',
  },
  /** The Meta Android webviews refusing the intent escape for some days (Threads, Messenger listed ❌). */
  debuggerMetaIntent: { url: 'https://github.com/shalanah/inapp-debugger/issues/11', date: '2024-11-03' },
  /** Chrome's documented intent syntax and its browser fallback. */
  chromeIntents: { url: 'https://developer.chrome.com/docs/android/intents', date: '2026-11-01' },
  /** Apple: universal links open the app on a tap in Safari (and SFSafariViewController). */
  appleUniversal: {
    url: 'https://developer.apple.com/documentation/xcode/allowing-apps-and-websites-to-link-to-your-content',
    date: '2026-11-01',
  },
  /** Threads' iOS user agent: Meta's own WKWebView (`Barcelona … IABMV/1`, no `Safari/`), not SFSafariViewController. */
  threadsIosWebview: { url: 'https://github.com/ua-parser/uap-core/issues/651', date: '2026-02-05' },
  /** callapp-lib: WeChat, QQ and Weibo block scheme launches; it guides the visitor to the browser menu. */
  callappLib: { url: 'https://github.com/suanmei/callapp-lib#readme', date: '2026-11-01' },
  /** The rule for in-app browsers nobody has tested: the generic WebView hand-off (reference 3.6). */
  genericWebview: {
    url: 'https://developer.chrome.com/docs/android/intents#intent_syntax',
    date: '2026-11-01',
  },
} as const;
