/**
 * The checks every URL-valued field makes, without a schema library: core/urls.ts builds its Zod fields on
 * them, and the self-hosted engine, which idles without Zod (docs/performance.md, "Memory"), calls them as
 * they are.
 */

/** True for an absolute http: or https: URL with a host: the only destinations a link may carry. */
export function isHttpUrl(value: string): boolean {
  if (value.length > 8192 || value.trim() !== value) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;
/** True when `text` holds a C0 control character or DEL. */
export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);
