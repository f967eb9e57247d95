/**
 * The escape page's only script, inlined with the page's CSP nonce. It never receives values by
 * interpolation: it reads the `#lh-config` JSON block and the hrefs of the page's own links.
 *
 * Config: `{kind, auto, delay, token, report}`; `delay` is the cell's fallbackDelayMs; `token` and
 * `report` are null on the engine, which then reports nothing.
 *
 * Outcome rules (issue 18), one terminal outcome, the first one wins:
 * - an attempt is a tap on `#lh-open` or the single automatic attempt (only where the cell allows one);
 * - the page turning hidden within 15 s of an attempt, while we did not navigate ourselves, means the
 *   hand-off worked: `opened` (`browser` for an `x-safari` bounce, which leaves for Safari, not the app);
 * - the page being unloaded within `delay` of an attempt (`pagehide`, which browsers fire before the
 *   unload's `visibilitychange`): the browser loaded an error page or the intent's fallback instead of
 *   the app: `broken`, and that unload's hidden state is not taken for an app switch;
 * - still visible after `delay`: the page continues to the website itself and reports `browser`;
 * - a tap on "Continue to website": `browser`.
 * Timers are cleared when the page turns hidden; nothing is retried; no automatic attempt after a
 * bfcache restore, a back/forward or reload navigation, or on a URL carrying `esc=1`.
 *
 * ES5 on purpose: old Android WebViews and WeChat still run it. Short names because it ships in every
 * page: c config, b button, g web link, m brand link, o outcome, a attempt time, t decision timer,
 * q auto-attempt timer, f we navigated ourselves, z page unloading, r auto attempt used or forbidden,
 * s skip the auto attempt, k the success outcome, e the delay. No `//` comments inside, since the source
 * is joined into one line.
 */
const SOURCE = `(function () {
  var d = document, w = window, l = w.location, n = w.navigator, c, o = null, a = 0, t = 0, q = 0;
  var f = 0, z = 0, r = 0;
  try { c = JSON.parse(d.getElementById('lh-config').textContent); } catch (e) { return; }
  var b = d.getElementById('lh-open'), g = d.getElementById('lh-web'), m = d.getElementById('lh-brand');
  var k = c.kind === 'x-safari' ? 'browser' : 'opened', e = c.delay > 0 ? c.delay : 2500;
  function send(x) {
    if (!c.token || !c.report) return;
    var y = JSON.stringify({ token: c.token, outcome: x });
    try { if (n.sendBeacon && n.sendBeacon(c.report, y)) return; } catch (e) {}
    try {
      w.fetch(c.report, { method: 'POST', body: y, keepalive: true, headers: { 'content-type': 'text/plain' } })
        .catch(function () {});
    } catch (e) {}
  }
  function settle(x) { if (o === null) { o = x; send(x); } }
  function stop() { clearTimeout(t); clearTimeout(q); t = q = 0; }
  function decide() {
    t = 0;
    if (f || z) return;
    if (d.visibilityState === 'hidden') { settle(k); return; }
    settle('browser');
    f = 1;
    if (g) l.href = g.getAttribute('href');
  }
  function attempt() { a = Date.now(); f = 0; clearTimeout(t); t = setTimeout(decide, e); }
  d.addEventListener('visibilitychange', function () {
    if (d.visibilityState !== 'hidden') return;
    stop();
    if (a && !f && !z && Date.now() - a <= 15000) settle(k);
  });
  w.addEventListener('pagehide', function () {
    stop();
    if (a && !f && !z && Date.now() - a <= e) settle('broken');
    z = 1;
  });
  w.addEventListener('pageshow', function (v) { if (v.persisted) { r = 1; z = f = 0; } });
  if (b) b.addEventListener('click', attempt);
  if (g) g.addEventListener('click', function () { f = 1; stop(); settle('browser'); });
  if (m) m.addEventListener('click', function () { f = 1; stop(); });
  var s = /(?:^|[?&])esc=1(?:&|$)/.test(l.search || '');
  try {
    var v = w.performance.getEntriesByType('navigation')[0];
    if (v && (v.type === 'back_forward' || v.type === 'reload')) s = true;
  } catch (x) {}
  if (c.auto && b && !s) {
    q = setTimeout(function () {
      q = 0;
      if (r || a || o !== null || d.visibilityState === 'hidden') return;
      r = 1;
      attempt();
      l.href = b.getAttribute('href');
    }, 400);
  }
})();`;

/** The inline script, joined into one line (about 1.9 KB); spaces around operators dropped. */
export const ESCAPE_SCRIPT: string = SOURCE.replace(/\n\s*/g, '').replace(/ *([=(){},;:?|&<>!+-]+) */g, '$1');
