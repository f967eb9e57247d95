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

export const statsSlugParams = z.object({ slug: z.string().max(64) });
