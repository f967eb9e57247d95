import { z } from 'zod';
import { hasControlCharacter, isHttpUrl } from './http-url.js';

export { hasControlCharacter, isHttpUrl } from './http-url.js';

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
