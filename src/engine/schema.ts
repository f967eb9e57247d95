import { hasControlCharacter, isHttpUrl } from '../core/http-url.js';
import { EngineError } from './errors.js';

export const ENGINE_SLUG_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;

/** The longest destination, as given and once serialized (core/urls.ts urlField's `max`). */
const MAX_URL_LENGTH = 8192;

/** The Link of self-hosted-engine.md section 2, as create and read return it. */
export interface EngineLink {
  slug: string;
  url: string;
  shortUrl: string;
  deeplink: string | null;
}

export type CreateEngineLinkInput = { url: string; slug?: string | null | undefined };

/**
 * Validates a create body at the edge: `url` as core/urls.ts `urlField` takes it (a string of at most 8192
 * characters, no control character, an absolute http(s) URL with a host, stored in its WHATWG form of at
 * most 8192), `slug` absent, null or ENGINE_SLUG_PATTERN; other keys are ignored. A bad `url` is reported
 * before a bad `slug`. Plain code rather than Zod: the engine idles without Zod (docs/performance.md).
 */
export function parseCreateEngineLink(body: unknown): CreateEngineLinkInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new EngineError('invalid_url');
  const { url, slug } = body as { url?: unknown; slug?: unknown };
  const href = serializedHttpUrl(url);
  if (href === null) throw new EngineError('invalid_url');
  if (slug === undefined) return { url: href };
  // null reads as "not given": a generated slug, as when the key is absent.
  if (slug === null) return { url: href, slug: null };
  if (typeof slug !== 'string' || !ENGINE_SLUG_PATTERN.test(slug)) throw new EngineError('invalid_slug');
  return { url: href, slug };
}

/** The URL's WHATWG serialization when `value` is a destination a link may carry, else null. */
function serializedHttpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return null;
  if (hasControlCharacter(value) || !isHttpUrl(value)) return null;
  const href = new URL(value).href;
  return href.length > MAX_URL_LENGTH ? null : href;
}
