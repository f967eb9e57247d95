import { describe, expect, it } from 'vitest';
import {
  escapeAttr,
  escapeHtml,
  jsonForScript,
  jsString,
  safeHref,
} from '../../src/core/pages/escape-html.js';

const HOSTILE = `"'<>&\`</script><!--\u2028\u2029`;

describe('escapeHtml', () => {
  it('escapes every character that can change HTML structure', () => {
    expect(escapeHtml('<b>"Tom" & \'Jerry\'</b>')).toBe(
      '&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;',
    );
    expect(escapeHtml('</script><script>alert(1)</script>')).toBe(
      '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(escapeHtml('<!-- x -->')).toBe('&lt;!-- x --&gt;');
  });

  it('leaves harmless text alone, including non-ASCII', () => {
    expect(escapeHtml('YouTube Music')).toBe('YouTube Music');
    expect(escapeHtml('Tap ⋯ — 日本語')).toBe('Tap ⋯ — 日本語');
  });

  it('does not double-escape silently: & in an entity is escaped again', () => {
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });
});

describe('escapeAttr', () => {
  it('cannot be broken out of with either quote or a backtick', () => {
    const out = escapeAttr(HOSTILE);
    expect(out).not.toMatch(/["'<>`\u2028\u2029]/);
    expect(out).toBe('&quot;&#39;&lt;&gt;&amp;&#96;&lt;/script&gt;&lt;!--&#8232;&#8233;');
  });

  it('keeps a URL readable (only & changes)', () => {
    expect(escapeAttr('https://www.youtube.com/watch?v=abc&t=1')).toBe(
      'https://www.youtube.com/watch?v=abc&amp;t=1',
    );
  });
});

describe('jsString / jsonForScript', () => {
  it('produces a literal that cannot close the script or open a comment', () => {
    const out = jsString(HOSTILE);
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(out.toLowerCase()).not.toContain('</script');
    expect(out).not.toContain('<!--');
    expect(out.startsWith('"') && out.endsWith('"')).toBe(true);
  });

  it('round-trips through JSON.parse and through JavaScript evaluation', () => {
    const values = [HOSTILE, "it's", 'back`tick`$' + '{x}', 'line\nbreak\ttab\\', '\u0000\u001f', '😀 日本'];
    for (const value of values) {
      expect(JSON.parse(jsString(value))).toBe(value);
      expect(new Function(`return ${jsString(value)};`)()).toBe(value);
    }
  });

  it('escapes objects for a JSON block the same way', () => {
    const value = { url: 'https://x.test/</script><script>alert(1)</script>', n: 1, ok: true, no: null };
    const out = jsonForScript(value);
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(value);
  });
});

describe('safeHref', () => {
  it('keeps http, https, intent and custom app schemes', () => {
    const ok = [
      'https://www.youtube.com/watch?v=abc',
      'http://example.com/',
      'intent://www.youtube.com/watch?v=abc#Intent;scheme=https;package=com.google.android.youtube;end',
      'youtube://www.youtube.com/watch?v=abc',
      'x-safari-https://www.youtube.com/watch?v=abc',
      'spotify:track:4uLU6hMCjMI75M1A2tKUQC',
      'fb-messenger://user-thread/123',
      'com.amazon.mobile.shopping.web://www.amazon.com/dp/B0',
    ];
    for (const url of ok) expect(safeHref(url)).toBe(url);
  });

  it('refuses script-capable and local schemes, whatever the case', () => {
    const bad = [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'JAVASCRIPT:alert(1)',
      'vbscript:msgbox(1)',
      'VBScript:msgbox(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'DATA:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'blob:https://example.com/uuid',
      'filesystem:https://example.com/temporary/x',
    ];
    for (const url of bad) expect(safeHref(url)).toBe('#');
  });

  it('reads the scheme the way a browser does: leading controls and spaces, tabs and newlines inside', () => {
    const bad = [
      ' javascript:alert(1)',
      '\u0000javascript:alert(1)',
      '\u0001\u001f javascript:alert(1)',
      '\t\n\rjavascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'jav\r\nascript:alert(1)',
      ' \u000bdata:text/html,x',
    ];
    for (const url of bad) expect(safeHref(url)).toBe('#');
    expect(safeHref('  https://example.com/')).toBe('https://example.com/');
  });

  it('refuses scheme-less and malformed values', () => {
    for (const url of [
      '',
      '#',
      '/relative',
      '//evil.example/x',
      '&#106;avascript:alert(1)',
      ':no-scheme',
      '1http://x',
    ]) {
      expect(safeHref(url)).toBe('#');
    }
  });
});
