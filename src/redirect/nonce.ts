import { randomFillSync } from 'node:crypto';

const NONCE_BYTES = 16;
const POOL_NONCES = 256;

/**
 * CSP nonces for the escape page: 128 random bits each, drawn from a pool refilled 256 at a time, so
 * the hot path makes one kernel call per 256 pages instead of one per page.
 */
export function createNonceSource(): () => string {
  const pool = Buffer.alloc(NONCE_BYTES * POOL_NONCES);
  let offset = pool.length;
  return () => {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const nonce = pool.toString('base64', offset, offset + NONCE_BYTES);
    offset += NONCE_BYTES;
    return nonce;
  };
}
