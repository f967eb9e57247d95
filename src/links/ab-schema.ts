import { z } from 'zod';
import { linkSchema } from './schema.js';

/** A/B tests that conclude (issue #33): the readout, the promote body and answer, as Zod schemas. */

const count = z.number().int().describe('sampled estimate');

const variantReadout = z.object({
  variant: z.number().int().describe('0-based index in `ab`'),
  url: z.string(),
  weight: z.number(),
  visits: count.describe('human visits sent to this variant (bots excluded)'),
  outcomes: z.object({ opened: count, browser: count, broken: count }),
  openRate: z.number().nullable().describe('opened / reported outcomes; null when none was reported'),
  probabilityBest: z
    .number()
    .describe('probability that this variant has the highest open rate (Beta posteriors, Monte Carlo)'),
});

const testSummary = z.object({
  id: z.string(),
  startedAt: z.string(),
  promotedAt: z.string(),
  promotedVariant: z.number().int(),
  promotedBy: z.enum(['user', 'auto']),
  url: z.string().describe('the winning variant, which became the destination'),
});

export const abReadoutSchema = z
  .object({
    linkId: z.string(),
    /** Null while running: a test gets its id when it concludes. */
    testId: z.string().nullable(),
    status: z.enum(['running', 'concluded']),
    startedAt: z.string().nullable(),
    promotedAt: z.string().nullable(),
    promotedVariant: z.number().int().nullable(),
    promotedBy: z.enum(['user', 'auto']).nullable(),
    autoPromote: z.object({ minVisits: z.number().int(), confidence: z.number() }).nullable(),
    window: z
      .object({ from: z.string(), to: z.string() })
      .describe('the whole UTC days counted, first and last (YYYY-MM-DD)'),
    samples: z.number().int().describe('Monte Carlo draws behind probabilityBest'),
    configured: z.boolean(),
    sampled: z.literal(true),
    variants: z.array(variantReadout),
    history: z.array(testSummary).describe("the link's concluded tests, newest first (at most 20)"),
  })
  .meta({ id: 'AbReadout' });
export type AbReadout = z.infer<typeof abReadoutSchema>;

export const abReadoutQuery = z
  .object({ test: z.uuid('`test` must be the id of a concluded test').optional() })
  .strict();

export const promoteBody = z
  .object({
    variant: z
      .number({ message: 'variant must be a variant index: 0, 1, 2 or 3' })
      .int('variant must be a variant index: 0, 1, 2 or 3')
      .min(0, 'variant must be a variant index: 0, 1, 2 or 3')
      .describe('0-based index in the link’s `ab`'),
  })
  .strict();

export const promoteResult = z
  .object({ link: linkSchema, test: abReadoutSchema })
  .meta({ id: 'AbPromotion' });
