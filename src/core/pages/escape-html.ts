/**
 * Context-aware escaping for the HTML we render by string concatenation. Each function is for one
 * context only; the page never puts a value anywhere these do not cover.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
  '\u2028': '&#8232;',
  '\u2029': '&#8233;',
};

// U+2028/U+2029 are harmless in HTML, but as references they cannot reach a script context verbatim.
const HTML_SPECIAL = /[&<>"'`\u2028\u2029]/g;
const HTML_SPECIAL_TEST = /[&<>"'`\u2028\u2029]/;

function replaceSpecial(text: string): string {
  // Most values (platform names, ordinary URLs) need nothing: skip the replace and its allocation.
  return HTML_SPECIAL_TEST.test(text)
    ? text.replace(HTML_SPECIAL, (char) => HTML_ESCAPES[char] ?? char)
    : text;
}

/** For HTML text content. Quotes are escaped too, so the result is also safe in a quoted attribute. */
export function escapeHtml(text: string): string {
  return replaceSpecial(String(text));
}

/**
 * For a double- or single-quoted attribute value. Backticks are escaped as well: old IE parsed them as
 * attribute quotes.
 */
export function escapeAttr(value: string): string {
  return replaceSpecial(String(value));
}

const SCRIPT_UNSAFE = /[<>&\u2028\u2029]/g;
const SCRIPT_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON that is safe inside an inline `<script>` (executable or `type="application/json"`): `<` cannot
 * start `</script>` or `<!--`, and U+2028/U+2029 (line terminators in older JavaScript) are escaped.
 * JSON.parse of the result gives back the original value.
 */
export function jsonForScript(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  return json.replace(SCRIPT_UNSAFE, (char) => SCRIPT_ESCAPES[char] ?? char);
}

/** A JavaScript string literal safe inside an inline `<script>`. */
export function jsString(value: string): string {
  return jsonForScript(String(value));
}

const BLOCKED_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file', 'blob', 'filesystem']);
const TAB_OR_NEWLINE = /[\t\n\r]/g;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/**
 * The URL if it is safe as a link target: http, https, intent, or any custom app scheme except
 * javascript, vbscript, data, file, blob and filesystem; otherwise '#'. Scheme-less (relative) values
 * are refused too: every link we render is absolute. The value is checked the way a browser reads it,
 * so `  JaVa\tScRiPt:` is caught. Escape the result with escapeAttr before putting it in an attribute.
 */
export function safeHref(url: string): string {
  // Browsers skip leading C0 controls and spaces, and drop tabs and newlines anywhere, before parsing.
  const text = String(url);
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 0x20) start++;
  const cleaned = text.slice(start).replace(TAB_OR_NEWLINE, '');
  const scheme = SCHEME.exec(cleaned)?.[1]?.toLowerCase();
  if (scheme === undefined || BLOCKED_SCHEMES.has(scheme)) return '#';
  return cleaned;
}
