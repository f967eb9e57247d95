import { z } from 'zod';

/** Media kit shapes (hosted-service.md 2 and 4.3): settings, the public payload, the dashboard answer. */

export const SECTIONS = ['taps', 'appOpenRate', 'platforms', 'topLinks', 'trend'] as const;
export type Section = (typeof SECTIONS)[number];
export type Show = Record<Section, boolean>;

export interface MediaKitSettings {
  published: boolean;
  show: Show;
}

/** What an organization that never opted in has: nothing shown, nothing published. */
export const DEFAULT_SETTINGS: MediaKitSettings = {
  published: false,
  show: { taps: false, appOpenRate: false, platforms: false, topLinks: false, trend: false },
};

/**
 * Default-deny: only a literal `true` switches something on; anything else (missing, "true", 1, null)
 * is off. The result is always the full object, never a merge with what was stored.
 */
export function settingsFrom(body: { published?: unknown; show?: unknown }): MediaKitSettings {
  const show = (body.show && typeof body.show === 'object' ? body.show : {}) as Record<string, unknown>;
  return {
    published: body.published === true,
    show: Object.fromEntries(SECTIONS.map((key) => [key, show[key] === true])) as Show,
  };
}

/** Loose on purpose: values are read by settingsFrom's default-deny rule, not rejected. */
export const mediaKitBody = z.object({
  published: z.unknown().optional().describe('only `true` publishes'),
  show: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('`taps`, `appOpenRate`, `platforms`, `topLinks`, `trend`: only `true` switches a section on'),
});

const showSchema = z.object(
  Object.fromEntries(SECTIONS.map((k) => [k, z.boolean()])) as Record<Section, z.ZodBoolean>,
);
export const settingsSchema = z
  .object({ published: z.boolean(), show: showSchema })
  .meta({ id: 'MediaKitSettings' });

const count = z.number().int();
export const publicKitSchema = z
  .object({
    handle: z.string(),
    title: z.string(),
    bio: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    theme: z.object({ bg: z.string(), ink: z.string(), accent: z.string() }).nullable(),
    updatedAt: z.string(),
    window: count,
    sampled: z.literal(true),
    configured: z.boolean(),
    empty: z.boolean(),
    taps: count.optional(),
    appOpen: z
      .object({ rate: z.number().nullable(), opened: count, browser: count, broken: count })
      .optional(),
    platforms: z.array(z.object({ platform: z.string(), clicks: count })).optional(),
    topLinks: z.array(z.object({ label: z.string(), url: z.string(), clicks: count })).optional(),
    trend: z.array(z.object({ day: z.string(), clicks: count })).optional(),
  })
  .meta({ id: 'MediaKitPublic' });
export type PublicKit = z.infer<typeof publicKitSchema>;

export const dashboardKitSchema = z.object({
  kit: settingsSchema.nullable(),
  preview: publicKitSchema.nullable(),
  needsBioPage: z.literal(true).optional(),
});
export type DashboardKit = z.infer<typeof dashboardKitSchema>;
