import { z } from 'zod';

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

/**
 * Every URL-valued field: refused when it holds a control character (the WHATWG parser would drop tabs
 * and newlines silently, so what was stored would not be what is served), otherwise stored in its
 * WHATWG-serialized form (`new URL(x).href`), so stored, echoed and served are one string.
 */
export function urlField(options: { message: string; max: number; httpsOnly?: boolean }) {
  const { message, max, httpsOnly = false } = options;
  return z
    .string()
    .max(max, `URLs are at most ${max} characters`)
    .refine((value) => !hasControlCharacter(value), {
      message: 'control characters are not allowed',
      abort: true,
    })
    .refine((value) => isHttpUrl(value) && (!httpsOnly || new URL(value).protocol === 'https:'), {
      message,
      abort: true,
    })
    .transform((value) => new URL(value).href)
    .pipe(z.string().max(max, `URLs are at most ${max} characters once serialized`));
}
