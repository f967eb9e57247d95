import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, idParams } from '../http/schemas.js';
import { orgOf } from '../http/v1-auth.js';
import type { LinkService } from '../links/service.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';

/**
 * Permanence receipts: a link's identity and destination signed with Ed25519, verifiable offline by anyone
 * against the published key. The signature covers the UTF-8 JSON of every other field, keys sorted.
 */

const receiptSchema = z.object({
  linkId: z.uuid(),
  slug: z.string(),
  shortUrl: z.string(),
  destination: z.string(),
  createdAt: z.string(),
  issuedAt: z.string(),
  keyId: z.string(),
  signature: z.string().describe('Ed25519 over the sorted-key JSON of the other fields, base64url'),
});
const keysSchema = z.object({
  keys: z.array(z.object({ keyId: z.string(), alg: z.literal('Ed25519'), publicKey: z.string() })),
});

export type Receipt = z.infer<typeof receiptSchema>;

/** The bytes that are signed: JSON with keys sorted, no whitespace. */
export function canonicalJson(value: Record<string, string>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  );
}

function rawPublicKey(privateKey: KeyObject): string {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return String(jwk.x);
}

function keyIdOf(publicKey: string): string {
  return createHash('sha256').update(publicKey).digest('hex').slice(0, 16);
}

/** RECEIPT_SIGNING_KEY: a PKCS#8 PEM, or base64/base64url of the 32-byte seed. */
function parseConfiguredKey(value: string): KeyObject {
  if (value.includes('BEGIN')) return createPrivateKey(value);
  const seed = Buffer.from(value, 'base64url');
  if (seed.length !== 32)
    throw new Error('RECEIPT_SIGNING_KEY must be a PKCS#8 PEM or a 32-byte Ed25519 seed in base64');
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
}

/** Loads the signing key: the configured one, else the stored one, else a new one stored for every instance. */
export async function loadReceiptKey(
  store: Store,
  configured: string | undefined,
  now: () => Date,
): Promise<KeyObject> {
  if (configured) return parseConfiguredKey(configured);
  const { db } = store;
  const existing = await db
    .selectFrom('signing_keys')
    .selectAll()
    .where('purpose', '=', 'receipts')
    .executeTakeFirst();
  if (existing) return createPrivateKey(existing.private_key);
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  await db
    .insertInto('signing_keys')
    .values({
      purpose: 'receipts',
      key_id: keyIdOf(rawPublicKey(privateKey)),
      private_key: pem,
      created_at: now().toISOString(),
    })
    .onConflict((conflict) => conflict.column('purpose').doNothing())
    .execute();
  // Another instance may have won the race: everyone uses the stored key.
  const stored = await db
    .selectFrom('signing_keys')
    .selectAll()
    .where('purpose', '=', 'receipts')
    .executeTakeFirstOrThrow();
  return createPrivateKey(stored.private_key);
}

export function createReceiptService(deps: { links: LinkService; privateKey: KeyObject; now: () => Date }) {
  const publicKey = rawPublicKey(deps.privateKey);
  const keyId = keyIdOf(publicKey);
  return {
    publishedKeys: () => ({ keys: [{ keyId, alg: 'Ed25519' as const, publicKey }] }),
    async issue(ctx: OrgContext, linkId: string): Promise<Receipt> {
      const link = await deps.links.get(ctx, linkId);
      const fields = {
        linkId: link.id,
        slug: link.slug,
        shortUrl: link.shortUrl,
        destination: link.destination,
        createdAt: link.createdAt,
        issuedAt: deps.now().toISOString(),
        keyId,
      };
      const signature = sign(null, Buffer.from(canonicalJson(fields), 'utf8'), deps.privateKey).toString(
        'base64url',
      );
      return { ...fields, signature };
    },
  };
}

export type ReceiptService = ReturnType<typeof createReceiptService>;

export async function receiptRoutes(app: FastifyInstance, deps: { receipts: ReceiptService }): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/links/:id/receipt',
    {
      config: { permission: 'links:read' },
      schema: {
        operationId: 'getLinkReceipt',
        summary: 'Get a signed permanence receipt',
        tags: ['links'],
        params: idParams,
        response: { 200: receiptSchema, ...errorResponses(404) },
      },
    },
    async (request) => deps.receipts.issue(orgOf(request), request.params.id),
  );
}

/** The public key document, outside /v1: no credential needed to verify a receipt. */
export async function receiptKeyRoutes(
  app: FastifyInstance,
  deps: { receipts: ReceiptService },
): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/.well-known/linkhop-receipt-keys.json',
    {
      schema: {
        operationId: 'getReceiptKeys',
        summary: 'Get the receipt signing public keys',
        tags: ['receipts'],
        security: [],
        response: { 200: keysSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return deps.receipts.publishedKeys();
    },
  );
}
