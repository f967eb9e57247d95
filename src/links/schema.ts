import { z } from 'zod';
import { regionName } from '../core/intl.js';
import { urlField } from '../core/urls.js';
import { normalizeHostname } from '../domains/hostnames.js';

/**
 * The Link resource of hosted-service.md section 2: the writable fields as Zod schemas (they validate
 * the bodies, type the service and generate the OpenAPI document), and the response shape.
 */

export const SLUG_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;
/**
 * decisions.md: never assignable, whatever the case; `_` and `@` prefixes are ours too. `metrics` joined
 * later: a link that took it before still redirects (the metrics answer there only where no link does).
 */
export const RESERVED_SLUGS = new Set([
  'api',
  'v1',
  'docs',
  'internal',
  'health',
  'assets',
  'static',
  'u',
  'metrics',
]);
const MAX_URL = 4096;
/** The largest click limit an integer column holds on both dialects. */
export const MAX_CLICK_LIMIT = 2_147_483_647;
const httpUrl = (message: string) => urlField({ message, max: MAX_URL });

export const slugSchema = z
  .string()
  .regex(SLUG_PATTERN, 'Slugs are 1 to 32 letters, digits, hyphens and underscores')
  .refine(
    (slug) => !slug.startsWith('_') && !RESERVED_SLUGS.has(slug.toLowerCase()),
    'This slug is reserved',
  );

/** A link's hostname in the form domains are stored in (lower-case, punycode); it must be a verified domain. */
export const hostnameSchema = z
  .string()
  .max(253)
  .transform((host, ctx) => {
    const normalized = normalizeHostname(host);
    if ('hostname' in normalized) return normalized.hostname;
    ctx.addIssue({ code: 'custom', message: normalized.problem });
    return z.NEVER;
  });

const utmValue = z.string().max(200, 'UTM values are at most 200 characters');
export const utmSchema = z
  .object({
    source: utmValue.optional(),
    medium: utmValue.optional(),
    campaign: utmValue.optional(),
    term: utmValue.optional(),
    content: utmValue.optional(),
  })
  .strict();

// Region codes that ICU names but that are not countries a visitor can be in.
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ', 'AA']);
/** An ISO 3166-1 alpha-2 country code, upper-case, as the geo header carries it. */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return false;
  return regionName(code) !== code;
}

/** Routing's shape, for the body (URLs checked and serialized) and for answers (stored strings). */
const routingShape = <U extends z.ZodType<string, string>>(url: U) =>
  z
    .object({
      ios: url.optional(),
      android: url.optional(),
      desktop: url.optional(),
      geo: z
        .record(
          z
            .string()
            .refine(isCountryCode, 'geo keys are ISO 3166-1 alpha-2 country codes in upper case, e.g. US'),
          url,
        )
        .optional(),
    })
    .strict();
export const routingSchema = routingShape(httpUrl('Every routed destination must be a valid http(s) URL'));
const routingOut = routingShape(z.string());

export const abSchema = z
  .array(
    z
      .object({
        u: httpUrl('Every A/B variant must be a valid http(s) URL'),
        w: z.number().positive('A/B weights are positive numbers').finite(),
      })
      .strict(),
  )
  .min(2, 'An A/B test needs 2 to 4 variants')
  .max(4, 'An A/B test needs 2 to 4 variants');

/** A/B auto-promote: the test concludes by itself once every variant has minVisits and one is this sure. */
export const abAutoPromoteSchema = z
  .object({
    minVisits: z
      .number({ message: 'minVisits must be a whole number from 1 to 10000000' })
      .int('minVisits must be a whole number from 1 to 10000000')
      .min(1, 'minVisits must be a whole number from 1 to 10000000')
      .max(10_000_000, 'minVisits must be a whole number from 1 to 10000000')
      .describe('Human visits every variant needs first'),
    confidence: z
      .number({ message: 'confidence must be a number from 0.8 to 0.999' })
      .min(0.8, 'confidence must be a number from 0.8 to 0.999')
      .max(0.999, 'confidence must be a number from 0.8 to 0.999')
      .describe('The probability of being best the winner needs, 0.8 to 0.999'),
  })
  .strict();

export const schedSchema = z
  .array(
    z
      .object({
        from: z.number().int('`from` is whole epoch seconds').nonnegative(),
        url: urlField({
          message: 'Every scheduled destination must be an https:// URL',
          max: MAX_URL,
          httpsOnly: true,
        }),
      })
      .strict(),
  )
  .max(10, 'At most 10 scheduled destinations');

const tagSchema = z
  .string()
  .transform((tag) => tag.trim())
  .pipe(z.string().min(1, 'Tags are 1 to 64 characters').max(64, 'Tags are 1 to 64 characters'));

const writableFields = {
  slug: slugSchema,
  hostname: hostnameSchema.nullable(),
  tags: z.array(tagSchema).max(20, 'At most 20 tags').nullable(),
  folderId: z.uuid().nullable(),
  pixelIds: z.array(z.uuid()).max(10, 'At most 10 pixels per link').nullable(),
  captureEmails: z.boolean(),
  utm: utmSchema.nullable(),
  routing: routingSchema.nullable(),
  ab: abSchema.nullable(),
  abAutoPromote: abAutoPromoteSchema.nullable(),
  sched: schedSchema.nullable(),
  password: z.string().min(1).max(200).nullable(),
  // Campaign end date and click limit (issue #20): an expired link re-points to expiredUrl, never breaks.
  expiresAt: z.iso
    .datetime({ offset: true, message: 'expiresAt must be an ISO 8601 date-time, e.g. 2026-06-30T23:59:59Z' })
    .nullable(),
  expiredUrl: httpUrl('expiredUrl must be a valid http(s) URL').nullable(),
  maxClicks: z
    .number({ message: 'maxClicks must be a whole number of at least 1' })
    .int('maxClicks must be a whole number of at least 1')
    .min(1, 'maxClicks must be a whole number of at least 1')
    .max(MAX_CLICK_LIMIT, `maxClicks is at most ${MAX_CLICK_LIMIT}`)
    .nullable(),
  publicStats: z.boolean(),
  // Destination health (issue #33): where visits go while the destination is down.
  fallbackUrl: httpUrl('fallbackUrl must be a valid http(s) URL').nullable(),
};

const linkFields = z
  .object({ url: httpUrl('`url` must be a valid http(s) URL'), ...writableFields })
  .strict();

/** Create: `url` required, every power optional. */
export const createLinkBody = linkFields.partial().required({ url: true });
/** PATCH: everything optional; `null` clears a field, an array or object replaces it wholesale. */
export const updateLinkBody = linkFields.partial();

export type CreateLinkInput = z.infer<typeof createLinkBody>;
export type UpdateLinkInput = z.infer<typeof updateLinkBody>;
export type Utm = z.infer<typeof utmSchema>;
export type Routing = z.infer<typeof routingSchema>;
export type AbVariant = z.infer<typeof abSchema>[number];
export type AbAutoPromote = z.infer<typeof abAutoPromoteSchema>;
export type SchedEntry = z.infer<typeof schedSchema>[number];

export const linkHealthSchema = z.object({
  state: z.enum(['unknown', 'ok', 'down']),
  /** The last check (ISO 8601), null before the first. */
  checkedAt: z.string().nullable(),
  /** When the state last changed. */
  since: z.string().nullable(),
  /** The last check's HTTP status, null when it got none (DNS, connection, timeout). */
  lastStatus: z.number().int().nullable(),
});

/** `GET /v1/links/{id}/health`: the health and the checks behind it. */
export const linkHealthHistorySchema = linkHealthSchema.extend({
  checks: z.array(
    z.object({
      checkedAt: z.string(),
      outcome: z.enum(['ok', 'failed', 'neutral']),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
      durationMs: z.number().int(),
    }),
  ),
});
export type LinkHealthHistory = z.infer<typeof linkHealthHistorySchema>;

export const linkSchema = z.object({
  id: z.uuid(),
  slug: z.string(),
  hostname: z.string().nullable(),
  shortUrl: z.string(),
  destination: z.string(),
  platformKey: z.string().nullable(),
  branded: z.boolean(),
  readOnly: z.boolean(),
  utm: utmSchema.nullable(),
  routing: routingOut.nullable(),
  ab: z.array(z.object({ u: z.string(), w: z.number() })).nullable(),
  abAutoPromote: z.object({ minVisits: z.number().int(), confidence: z.number() }).nullable(),
  sched: z.array(z.object({ from: z.number(), url: z.string() })).nullable(),
  hasPassword: z.boolean(),
  tags: z.array(z.string()),
  folderId: z.string().nullable(),
  pixelIds: z.array(z.string()),
  captureEmails: z.boolean(),
  expiresAt: z.string().nullable(),
  expiredUrl: z.string().nullable(),
  maxClicks: z.number().int().nullable(),
  /** Read-only: the end date has passed or the human clicks reached maxClicks; visits go to expiredUrl. */
  expired: z.boolean(),
  publicStats: z.boolean(),
  /** Where visits go while the destination is down; null: they keep going to the destination. */
  fallbackUrl: z.string().nullable(),
  /** Read-only: the destination's health, from the checker (issue #33). */
  health: linkHealthSchema,
  archived: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Link = z.infer<typeof linkSchema>;

/** An optional text filter: trimmed, and an empty value is no filter at all. */
const filterText = (max: number, message: string) =>
  z
    .string()
    .trim()
    .max(max, message)
    .optional()
    .transform((value) => (value ? value : undefined));

const booleanFilter = (name: string) =>
  z
    .enum(['true', 'false'], { message: `${name} is true or false` })
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true'));

export const listQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200, '`limit` is at most 200').optional(),
    offset: z.coerce.number().int().min(0).optional(),
    /** Case-insensitive substring of the slug or the destination. */
    q: filterText(200, '`q` is at most 200 characters'),
    /** Links carrying exactly this tag. */
    tag: filterText(64, 'Tags are 1 to 64 characters'),
    /** Links in this folder. */
    folderId: z.uuid('`folderId` must be a folder id').optional(),
    /** true lists archived links instead of live ones. */
    archived: booleanFilter('archived'),
    /** true: only expired links; false: only links still going to their destination. */
    expired: booleanFilter('expired'),
    /** Only links whose destination is in this state (`unknown`: never checked yet). */
    health: z.enum(['ok', 'down', 'unknown'], { message: 'health is ok, down or unknown' }).optional(),
  })
  .strict();

export type ListQuery = z.output<typeof listQuery>;
/** What the repo filters on; every part optional and combinable. */
export interface LinkListFilter {
  limit?: number | undefined;
  offset?: number | undefined;
  q?: string | undefined;
  tag?: string | undefined;
  folderId?: string | undefined;
  archived?: boolean | undefined;
  expired?: boolean | undefined;
  health?: 'ok' | 'down' | 'unknown' | undefined;
}
