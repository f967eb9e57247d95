import { z } from 'zod';

/**
 * Imports (issue 21): the bodies of POST /v1/imports, one per source, and the progress answer. The
 * bodies' fields are the contract's, verbatim; credentials are only ever written, never read back.
 */

export const IMPORT_SOURCES = ['csv', 'bitly', 'shlink', 'kutt', 'dub', 'yourls'] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];
export const IMPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** A CSV of 10,000 links (the row cap, sources/csv.ts) is about 1 MB; long rows may take up to this much. */
export const CSV_MAX_CHARS = 8 * 1024 * 1024;

const secret = (name: string) =>
  z
    .string({ error: `\`${name}\` is required` })
    .trim()
    .min(1, `\`${name}\` is required`)
    .max(512, `\`${name}\` is at most 512 characters`);
const baseUrl = z
  .string({ error: '`baseUrl` is required: the address of the service' })
  .trim()
  .max(2048, '`baseUrl` is at most 2048 characters')
  .url('`baseUrl` must be the http(s) address of the service, e.g. https://s.example.com')
  .refine((value) => /^https?:\/\//i.test(value), '`baseUrl` must be an http(s) address');

export const createImportBody = z.discriminatedUnion('source', [
  z
    .object({
      source: z.literal('csv'),
      csv: z.string().min(1, '`csv` is the file’s text').max(CSV_MAX_CHARS, 'The CSV is larger than 8 MB'),
    })
    .strict(),
  z
    .object({
      source: z.literal('bitly'),
      token: secret('token'),
      groupGuid: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, '`groupGuid` is a Bitly group GUID such as Ba1bc23dE4F')
        .optional(),
      /** Another Bitly API origin (an API proxy); defaults to https://api-ssl.bitly.com. */
      baseUrl: baseUrl.optional(),
    })
    .strict(),
  z.object({ source: z.literal('shlink'), baseUrl, apiKey: secret('apiKey') }).strict(),
  z.object({ source: z.literal('kutt'), baseUrl, apiKey: secret('apiKey') }).strict(),
  z.object({ source: z.literal('dub'), apiKey: secret('apiKey'), baseUrl: baseUrl.optional() }).strict(),
  z.object({ source: z.literal('yourls'), baseUrl, signature: secret('signature') }).strict(),
]);
export type CreateImportInput = z.infer<typeof createImportBody>;

export const importErrorSchema = z.object({ item: z.string(), reason: z.string() });
export type ImportError = z.infer<typeof importErrorSchema>;

export const importSchema = z
  .object({
    id: z.string(),
    source: z.enum(IMPORT_SOURCES),
    status: z.enum(IMPORT_STATUSES),
    total: z.number().int().describe('items the source holds (as it says while paging; exact once done)'),
    imported: z.number().int(),
    skipped: z.number().int().describe('valid items not imported: already imported, slug taken, link cap'),
    failed: z.number().int().describe('items that cannot be links here (invalid URL or slug)'),
    errors: z
      .array(importErrorSchema)
      .describe('why each skipped or failed item was left out, and notes (a custom hostname not verified)'),
    errorCount: z.number().int().describe('all errors recorded; `errors` shows the first 500'),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'Import' });
export type Import = z.infer<typeof importSchema>;

export const importListSchema = z.object({ imports: z.array(importSchema.omit({ errors: true })) });
export const createdImportSchema = z.object({ id: z.string() });

/** One link as a source gives it, in the source's own terms made common. */
export interface SourceItem {
  /** The item's identity at the source, for "a re-run imports nothing twice". */
  key: string;
  /** How errors name the item: its short URL, or `line 12` of a CSV. */
  label: string;
  url: string;
  slug: string | null;
  /** The short URL's hostname when it is the owner's own domain; null on the source's shared domains. */
  host: string | null;
  tags: string[];
  title: string | null;
  /** ISO 8601, or null when the source does not say. */
  createdAt: string | null;
  visits: number | null;
}
