/**
 * WCAG 2.1 contrast of every visible text run on the page, computed in the browser: the text colour
 * against the first opaque background behind it (the element's own, or an ancestor's). Returned as a
 * string to `page.evaluate` so this file needs no DOM types. Normal text needs 4.5:1; large text (24px,
 * or 18.66px bold) 3:1. Disabled controls are exempt, as WCAG says.
 */
export const LOW_CONTRAST = `(() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const blend = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const backgroundOf = (el) => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const s = getComputedStyle(e);
      if (s.backgroundImage !== 'none') return null; // a gradient or image: not judged here
      const c = parse(s.backgroundColor); if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; } }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (let i = layers.length - 1; i >= 0; i--) bg = blend(layers[i], bg);
    return bg; };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement; if (!el || seen.has(el) || !n.textContent.trim()) continue; seen.add(el);
    if (el.closest('[disabled], [aria-disabled="true"], svg, .sr-only, option')) continue;
    const s = getComputedStyle(el); const rect = el.getBoundingClientRect();
    if (s.visibility === 'hidden' || s.display === 'none' || rect.width === 0 || rect.height === 0 || Number(s.opacity) < 0.1) continue;
    const fg = parse(s.color); const bg = backgroundOf(el); if (!fg || !bg) continue;
    const text = blend(fg, bg); const [a, b] = [lum(text), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(s.fontSize); const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) out.push(ratio.toFixed(2) + ' ' + s.color + ' on ' + JSON.stringify(bg) + ': ' + n.textContent.trim().slice(0, 40));
  }
  return out;
})()`;
