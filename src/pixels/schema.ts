import { z } from 'zod';

/** Ad pixels: the three kinds of decisions.md, each id validated for its kind. */

const PIXEL_ID_RULES = {
  meta: { pattern: /^\d{15,16}$/, message: 'A meta pixel id is 15 or 16 digits' },
  tiktok: { pattern: /^[A-Z0-9]{20}$/, message: 'A tiktok pixel id is 20 characters of A-Z and 0-9' },
  gtm: {
    pattern: /^GTM-[A-Z0-9]{4,10}$/,
    message: 'A gtm container id is GTM- and 4 to 10 characters of A-Z and 0-9',
  },
} as const;

export const pixelBody = z
  .object({
    type: z.enum(['meta', 'tiktok', 'gtm']),
    pixelId: z.string().trim(),
    name: z
      .string()
      .transform((name) => name.trim())
      .pipe(z.string().min(1).max(100)),
  })
  .strict()
  .superRefine((pixel, context) => {
    const rule = PIXEL_ID_RULES[pixel.type];
    if (!rule.pattern.test(pixel.pixelId))
      context.addIssue({ code: 'custom', path: ['pixelId'], message: rule.message });
  });

export const pixelSchema = z.object({
  id: z.uuid(),
  type: z.enum(['meta', 'tiktok', 'gtm']),
  pixelId: z.string(),
  name: z.string(),
  createdAt: z.string(),
});
export type Pixel = z.infer<typeof pixelSchema>;
export type PixelInput = z.infer<typeof pixelBody>;
