import { z } from 'zod';

/** `GET /api/public/stats/{slug}`, exactly as issue #20 words it: the last 30 days, aggregates only. */
export const publicStatsSchema = z
  .object({
    slug: z.string(),
    clicks: z.number().int(),
    appOpenRate: z.number().nullable().describe('opened among the taps that reported; null without any'),
    series: z.array(z.object({ date: z.string(), clicks: z.number().int() })),
    countries: z.array(z.object({ country: z.string().nullable(), clicks: z.number().int() })),
    devices: z.array(z.object({ device: z.string(), clicks: z.number().int() })),
  })
  .meta({ id: 'PublicStats' });
export type PublicStats = z.infer<typeof publicStatsSchema>;

/** `GET /links/stats?ids=`: the links list's numbers (issue #20), at most a page of links at a time. */
export const linkListStatsQuery = z
  .object({
    ids: z
      .string()
      .transform((text) => [
        ...new Set(
          text
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean),
        ),
      ])
      .pipe(
        z
          .array(z.uuid('ids are link ids, separated by commas'))
          .min(1)
          .max(200, 'ids lists at most 200 links'),
      ),
  })
  .strict();

export const linkListStatsSchema = z.object({
  days: z.number().int(),
  stats: z.array(
    z.object({
      linkId: z.string(),
      clicks: z.number().int(),
      appOpenRate: z.number().nullable().describe('null without reported taps, or below hero'),
    }),
  ),
});
export type LinkListStats = z.infer<typeof linkListStatsSchema>;

export const statsSlugParams = z.object({ slug: z.string().max(64) });
