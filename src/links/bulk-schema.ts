import { z } from 'zod';
import { errorBody } from '../http/schemas.js';
import { listQuery } from './schema.js';

/**
 * Bulk actions on links (issue #34): the body of POST /v1/bulk-actions, its answers, and the query of
 * GET /v1/links/export.csv. A selection is a list of ids or a filter (the filters of GET /v1/links); an
 * action is one change made to every selected link through the link service, as single writes make it.
 */

/** Up to this many links are changed in the request (200 with each link's outcome); more run as a job. */
export const BULK_SYNC_MAX = 100;
/** The ids one request may name; larger selections are a filter. */
export const BULK_IDS_MAX = 1000;
/** The most links one action takes (the largest plan's link cap): past it, narrow the filter. */
export const BULK_SELECTION_MAX = 100_000;

const tag = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().min(1, 'Tags are 1 to 64 characters').max(64, 'Tags are 1 to 64 characters'));
const tags = z.array(tag).min(1, 'Name 1 to 20 tags').max(20, 'Name 1 to 20 tags');

/** The actions, with the tags as a body gives them (trimmed, checked) or as an answer shows them. */
const actionShape = <T extends z.ZodType<string[]>>(tagList: T) =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('add_tags'), tags: tagList }).strict(),
    z.object({ type: z.literal('remove_tags'), tags: tagList }).strict(),
    z
      .object({
        type: z.literal('move'),
        folderId: z.uuid('`folderId` must be a folder id').nullable().describe('null: out of any folder'),
      })
      .strict(),
    z.object({ type: z.literal('archive') }).strict(),
    z.object({ type: z.literal('unarchive') }).strict(),
  ]);
export const bulkActionSchema = actionShape(tags);
export type BulkAction = z.infer<typeof bulkActionSchema>;
export type BulkActionType = BulkAction['type'];

/** The filters of GET /v1/links, as JSON (real booleans); every one optional, and they combine. */
export const bulkFilterSchema = z
  .object({
    q: z.string().trim().max(200, '`q` is at most 200 characters').optional(),
    tag: z.string().trim().max(64, 'Tags are 1 to 64 characters').optional(),
    folderId: z.uuid('`folderId` must be a folder id').optional(),
    archived: z.boolean().optional().describe('true: the archived links instead of the live ones'),
    expired: z.boolean().optional(),
    health: z.enum(['ok', 'down', 'unknown'], { message: 'health is ok, down or unknown' }).optional(),
  })
  .strict();

export const bulkSelectionSchema = z.union([
  z
    .object({
      ids: z
        .array(z.uuid('Every id must be a link id'))
        .min(1, `Name 1 to ${BULK_IDS_MAX} links`)
        .max(BULK_IDS_MAX, `Name 1 to ${BULK_IDS_MAX} links; select more with a filter`),
    })
    .strict(),
  z.object({ filter: bulkFilterSchema }).strict(),
]);
export type BulkSelection = z.infer<typeof bulkSelectionSchema>;

export const bulkActionBody = z.object({ selection: bulkSelectionSchema, action: bulkActionSchema }).strict();
export type BulkActionInput = z.infer<typeof bulkActionBody>;

export const BULK_OUTCOMES = ['changed', 'unchanged', 'failed'] as const;
export type BulkOutcome = (typeof BULK_OUTCOMES)[number];

export const bulkItemResultSchema = z.object({
  linkId: z.string(),
  outcome: z.enum(BULK_OUTCOMES).describe('unchanged: the link was already so (no write, no audit row)'),
  error: errorBody.optional().describe("a failed link's error body"),
});
export type BulkItemResult = z.infer<typeof bulkItemResultSchema>;

export const BULK_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/** A bulk action's state: done at once for a small selection, followed by its id for a job. */
export const bulkActionJobSchema = z
  .object({
    id: z.string().nullable().describe('the job to follow; null when it was done in the request'),
    action: actionShape(z.array(z.string())),
    status: z.enum(BULK_STATUSES),
    total: z.number().int().describe('the links selected when the action was asked for'),
    processed: z.number().int(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    failed: z.number().int(),
    results: z
      .array(bulkItemResultSchema)
      .describe("every link's outcome (in the request), or a job's failed links (the first 500)"),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'BulkAction' });
export type BulkActionJob = z.infer<typeof bulkActionJobSchema>;

const idList = z
  .string()
  .max(BULK_IDS_MAX * 37, `\`ids\` names at most ${BULK_IDS_MAX} links`)
  .transform((text) => text.split(',').filter(Boolean))
  .pipe(
    z
      .array(z.uuid('`ids` is link ids separated by commas'))
      .max(BULK_IDS_MAX, `\`ids\` names at most ${BULK_IDS_MAX} links`),
  );

/** GET /v1/links/export.csv: `ids=a,b`, or the filters of GET /v1/links (no paging: all of them). */
export const exportQuery = listQuery.omit({ limit: true, offset: true }).extend({ ids: idList.optional() });
export type ExportQuery = z.output<typeof exportQuery>;

/** The CSV importer's columns (src/imports/sources/csv.ts), so an export imports back as the same links. */
export const EXPORT_COLUMNS = ['url', 'slug', 'tags', 'title', 'created_at'] as const;
