import { z } from 'zod';
import { urlField } from '../core/urls.js';
import { EngineError } from './errors.js';

export const ENGINE_SLUG_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;

/** The Link of self-hosted-engine.md section 2, as create and read return it. */
export interface EngineLink {
  slug: string;
  url: string;
  shortUrl: string;
  deeplink: string | null;
}

const createLinkBody = z.object({
  url: urlField({ message: '`url` must be a valid http(s) URL', max: 8192 }),
  // null reads as "not given": a generated slug, as when the key is absent.
  slug: z.string().regex(ENGINE_SLUG_PATTERN).nullish(),
});

export type CreateEngineLinkInput = { url: string; slug?: string | null | undefined };

/** Validates a create body at the edge, mapping Zod's first failing field to the spec's exact text. */
export function parseCreateEngineLink(body: unknown): CreateEngineLinkInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new EngineError('invalid_url');
  const result = createLinkBody.safeParse(body);
  if (result.success) return result.data;
  const fields = new Set(result.error.issues.map((issue) => issue.path[0]));
  throw new EngineError(fields.has('url') ? 'invalid_url' : 'invalid_slug');
}
