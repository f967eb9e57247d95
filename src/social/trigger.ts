import { z } from 'zod';
import { AppError } from '../errors.js';

/**
 * The rule's trigger (decisions.md, "DM automation rule"): cleaned on the server so what is stored and
 * matched is always the canonical shape, whatever the client sent.
 */

export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 64;

export const triggerSchema = z
  .object({
    type: z
      .enum(['comment', 'message'])
      .describe('comment: a comment on a post; message: a DM to the account'),
    match: z
      .object({
        mode: z
          .enum(['any', 'exact'])
          .describe('any: the text contains a keyword as a whole word; exact: the trimmed text equals one'),
        keywords: z
          .array(z.string().max(MAX_KEYWORD_LENGTH))
          .max(MAX_KEYWORDS)
          .describe('case-insensitive; trimmed, blanks and duplicates dropped; empty means everyone'),
      })
      .strict(),
    mediaId: z
      .string()
      .regex(/^\d{1,32}$/)
      .nullable()
      .describe('comment only: one post (a provider id, as a string); null means any post'),
  })
  .strict()
  .meta({ id: 'DmTrigger' });

export type Trigger = z.infer<typeof triggerSchema>;

// Lenient input: keywords are trimmed and deduplicated before the limits apply; mediaId may be omitted.
const triggerInput = z
  .object({
    type: z.enum(['comment', 'message']),
    match: z
      .object({
        mode: z.enum(['any', 'exact']).default('any'),
        keywords: z.array(z.string()).default([]),
      })
      .strict()
      .default({ mode: 'any', keywords: [] }),
    mediaId: z.union([z.string(), z.number()]).nullable().optional(),
  })
  .strict();

function badTrigger(message: string): AppError {
  return new AppError('bad_trigger', 400, message);
}

/** Canonical trigger or 400 `bad_trigger`. */
export function cleanTrigger(input: unknown): Trigger {
  const parsed = triggerInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `trigger.${issue.path.join('.')}: ` : 'trigger: ';
    throw badTrigger(`${where}${issue?.message ?? 'invalid'}`);
  }
  const { type, match } = parsed.data;
  const seen = new Set<string>();
  const keywords: string[] = [];
  for (const raw of match.keywords) {
    const keyword = raw.trim().replace(/\s+/g, ' ');
    if (!keyword || seen.has(keyword.toLowerCase())) continue;
    if (keyword.length > MAX_KEYWORD_LENGTH)
      throw badTrigger(`Keywords are at most ${MAX_KEYWORD_LENGTH} characters`);
    seen.add(keyword.toLowerCase());
    keywords.push(keyword);
  }
  if (keywords.length > MAX_KEYWORDS) throw badTrigger(`At most ${MAX_KEYWORDS} keywords`);
  let mediaId: string | null = null;
  if (type === 'comment' && parsed.data.mediaId !== null && parsed.data.mediaId !== undefined) {
    // A number would already have lost digits; only strings of digits are trustworthy provider ids.
    if (typeof parsed.data.mediaId !== 'string' || !/^\d{1,32}$/.test(parsed.data.mediaId.trim())) {
      throw badTrigger('trigger.mediaId must be a provider media id given as a string of digits');
    }
    mediaId = parsed.data.mediaId.trim();
  }
  return { type, match: { mode: match.mode, keywords }, mediaId };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether an incoming text matches; the text is used here, in memory, and nowhere else. */
export function matchesText(trigger: Trigger, text: string): boolean {
  const { mode, keywords } = trigger.match;
  if (keywords.length === 0) return true;
  if (mode === 'exact') {
    const trimmed = text.trim().toLowerCase();
    return keywords.some((keyword) => keyword.toLowerCase() === trimmed);
  }
  // Whole word, Unicode-aware: a keyword must not sit inside a longer word.
  return keywords.some((keyword) =>
    new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(keyword)}(?![\\p{L}\\p{N}_])`, 'iu').test(text),
  );
}
