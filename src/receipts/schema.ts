import { z } from 'zod';

/** A permanence receipt and the published-keys document that verifies it. */

export const receiptSchema = z.object({
  linkId: z.uuid(),
  slug: z.string(),
  shortUrl: z.string(),
  destination: z.string(),
  createdAt: z.string(),
  issuedAt: z.string(),
  keyId: z.string(),
  signature: z.string().describe('Ed25519 over the sorted-key JSON of the other fields, base64url'),
});
export const keysSchema = z.object({
  keys: z.array(z.object({ keyId: z.string(), alg: z.literal('Ed25519'), publicKey: z.string() })),
});

export type Receipt = z.infer<typeof receiptSchema>;
