import { z } from 'zod';
import { urlField } from '../core/urls.js';
import { HANDLE_RULE } from './handles.js';

/** Shapes of the bio domain: the editable page, the block union, and the answers (hosted-service.md 2). */

// Theme colours end up inside a <style> element and an SVG attribute, so only plain colour syntax passes:
// hex, rgb()/rgba()/hsl()/hsla() with numeric arguments, or a named colour. No `;`, `}`, quotes or url().
const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUM = String.raw`\s*-?\d{1,3}(?:\.\d+)?(?:%|deg)?\s*`;
const FUNC = new RegExp(String.raw`^(?:rgb|rgba|hsl|hsla)\((?:${NUM},){2}${NUM}(?:,${NUM}|/${NUM})?\)$`, 'i');
const FUNC_SPACED = new RegExp(String.raw`^(?:rgb|hsl)\(${NUM}\s${NUM}\s${NUM}(?:/${NUM})?\)$`, 'i');
export const NAMED_COLOURS: ReadonlySet<string> = new Set(
  (
    'black white gray grey silver red maroon orange gold yellow olive lime green teal aqua cyan navy blue ' +
    'indigo purple violet fuchsia magenta pink hotpink crimson coral tomato salmon khaki beige ivory ' +
    'chocolate brown tan wheat plum orchid lavender turquoise skyblue steelblue slategray darkslategray ' +
    'midnightblue darkblue darkgreen darkred darkorange whitesmoke snow linen seashell mintcream ' +
    'aliceblue ghostwhite honeydew azure lightgray lightgrey dimgray dimgrey rebeccapurple'
  ).split(' '),
);

export function isCssColour(value: string): boolean {
  const v = value.trim();
  return HEX.test(v) || FUNC.test(v) || FUNC_SPACED.test(v) || NAMED_COLOURS.has(v.toLowerCase());
}

const colour = z
  .string()
  .max(64)
  .refine(isCssColour, 'A CSS colour: #hex, rgb(), rgba(), hsl(), hsla() or a colour name')
  .transform((v) => v.trim());

export const themeSchema = z.object({ bg: colour, ink: colour, accent: colour }).strict();
export type Theme = z.infer<typeof themeSchema>;
/** Answers carry stored colours as they are: no transform on the way out. */
const themeOut = z.object({ bg: z.string(), ink: z.string(), accent: z.string() }).nullable();

const httpsUrl = urlField({ message: 'avatarUrl must be an https:// URL', max: 2048, httpsOnly: true });

/** PUT /bio. `handle` is checked by the service (its own error code); omitted fields keep stored values. */
export const bioBody = z
  .object({
    handle: z
      .string()
      .max(200)
      .describe(
        `${HANDLE_RULE}; stored lowercased, unique case-insensitively; reserved words refused (400 invalid_handle)`,
      ),
    title: z.string().trim().min(1).max(100).optional(),
    bio: z.string().max(500).nullable().optional(),
    avatarUrl: httpsUrl.nullable().optional(),
    theme: themeSchema.nullable().optional(),
    published: z.boolean().optional(),
  })
  .strict();
export type BioInput = z.infer<typeof bioBody>;

const blockId = z.string().min(1).max(64);
const uuid = z.uuid();
const linkBlock = z
  .object({
    t: z.literal('link'),
    id: blockId,
    linkId: uuid,
    label: z.string().trim().min(1).max(120),
    note: z.string().max(200).optional(),
  })
  .strict();
const headerBlock = z
  .object({ t: z.literal('header'), id: blockId, text: z.string().trim().min(1).max(120) })
  .strict();
const textBlock = z
  .object({ t: z.literal('text'), id: blockId, text: z.string().trim().min(1).max(1000) })
  .strict();
const socialBlock = z
  .object({
    t: z.literal('social'),
    id: blockId,
    items: z
      .array(
        z
          .object({
            key: z.string().regex(/^[a-z0-9_-]{1,32}$/, 'key: 1 to 32 of a-z 0-9 _ -'),
            linkId: uuid,
          })
          .strict(),
      )
      .min(1)
      .max(20),
  })
  .strict();

export const blockSchema = z.discriminatedUnion('t', [linkBlock, headerBlock, textBlock, socialBlock]);
export type Block = z.infer<typeof blockSchema>;

export const MAX_BLOCKS = 100;
export const blockList = z
  .array(blockSchema)
  .max(MAX_BLOCKS, `At most ${MAX_BLOCKS} blocks`)
  .superRefine((blocks, ctx) => {
    const seen = new Set<string>();
    blocks.forEach((block, index) => {
      if (seen.has(block.id))
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'Block ids must be unique' });
      seen.add(block.id);
    });
  });

/** The link ids a block list references, in page order, without repeats. */
export function linkIdsOf(blocks: readonly Block[]): string[] {
  const ids = blocks.flatMap((b) =>
    b.t === 'link' ? [b.linkId] : b.t === 'social' ? b.items.map((i) => i.linkId) : [],
  );
  return [...new Set(ids)];
}

export const bioPageSchema = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    title: z.string(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    theme: themeOut,
    blocks: z.array(blockSchema),
    published: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'BioPage' });
export type BioPage = z.infer<typeof bioPageSchema>;

/** A block as the public sees it: link ids swapped for the service URL, nothing else. */
export const publicBlockSchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('link'),
    id: z.string(),
    label: z.string(),
    note: z.string().optional(),
    url: z.string(),
  }),
  z.object({ t: z.literal('header'), id: z.string(), text: z.string() }),
  z.object({ t: z.literal('text'), id: z.string(), text: z.string() }),
  z.object({
    t: z.literal('social'),
    id: z.string(),
    items: z.array(z.object({ key: z.string(), url: z.string() })),
  }),
]);
export type PublicBlock = z.infer<typeof publicBlockSchema>;

export const publicBioSchema = z
  .object({
    handle: z.string(),
    title: z.string(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    theme: themeOut,
    updatedAt: z.string(),
    blocks: z.array(publicBlockSchema),
  })
  .meta({ id: 'PublicBioPage' });
export type PublicBio = z.infer<typeof publicBioSchema>;

const outcomes = z.object({ opened: z.number(), browser: z.number(), broken: z.number() });
export const bioStatsSchema = z.object({
  configured: z.boolean(),
  sampled: z.literal(true),
  window: z.number().int(),
  blocks: z.array(
    z.object({
      linkId: z.string(),
      clicks: z.number(),
      outcomes,
      opened: z.number(),
      appOpenRate: z.number().nullable(),
    }),
  ),
  upgrade: z.string().optional(),
});
export type BioStats = z.infer<typeof bioStatsSchema>;
