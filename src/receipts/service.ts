import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import type { LinkService } from '../links/service.js';
import type { Store } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import { createReceiptRepo } from './repo.js';
import type { Receipt } from './schema.js';

/**
 * Permanence receipts: a link's identity and destination signed with Ed25519, verifiable offline by anyone
 * against the published key. The signature covers the UTF-8 JSON of every other field, keys sorted.
 */

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
  const repo = createReceiptRepo(store);
  const existing = await repo.storedKey();
  if (existing) return createPrivateKey(existing.private_key);
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  await repo.insertKeyIfAbsent({
    purpose: 'receipts',
    key_id: keyIdOf(rawPublicKey(privateKey)),
    private_key: pem,
    created_at: now().toISOString(),
  });
  // Another instance may have won the race: everyone uses the stored key.
  const stored = await repo.storedKeyOrThrow();
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
