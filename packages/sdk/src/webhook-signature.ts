/**
 * Verifying a delivery: linkhop signs the exact bytes of each webhook body with HMAC-SHA256 keyed by the
 * endpoint's signing secret (shown once, when the endpoint is created) and sends the lowercase hex digest
 * as `x-service-signature`. Check it over the raw body, before parsing: a re-serialized body differs.
 */

const encoder = new TextEncoder();

/** The header value as bytes; null when it is not 64 hex characters. */
function hexBytes(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export interface SignedDelivery {
  /** The raw request body, exactly as received (a string or its bytes). */
  body: string | Uint8Array;
  /** The `x-service-signature` header. */
  signature: string | null | undefined;
  /** The endpoint's signing secret. */
  secret: string;
}

/**
 * True when `signature` is the HMAC-SHA256 of `body` under `secret`. Web Crypto compares in constant
 * time, and it works the same in Node 20+, Deno, Bun, and edge runtimes.
 */
export async function verifyWebhookSignature({ body, signature, secret }: SignedDelivery): Promise<boolean> {
  const expected = typeof signature === 'string' ? hexBytes(signature.trim()) : null;
  if (!expected || !secret) return false;
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const data = typeof body === 'string' ? encoder.encode(body) : body;
  return crypto.subtle.verify('HMAC', key, expected, data);
}

/** The envelope every delivery carries. */
export interface WebhookEvent<T = unknown> {
  /** `link.created`, `link.updated`, `link.archived`, `app.opened`, `app.browser`, `app.broken`, `contact.captured` */
  event: string;
  /** When it was delivered (ISO 8601); a tap's own time is in `data.ts`. */
  ts: string;
  data: T;
}

/** The delivery's envelope, parsed only once its signature is verified; throws when it is not. */
export async function parseWebhook<T = unknown>(delivery: SignedDelivery): Promise<WebhookEvent<T>> {
  if (!(await verifyWebhookSignature(delivery))) {
    throw new Error('linkhop webhook signature is missing or does not match the body');
  }
  const text = typeof delivery.body === 'string' ? delivery.body : new TextDecoder().decode(delivery.body);
  return JSON.parse(text) as WebhookEvent<T>;
}
