import { createHmac, hash } from 'node:crypto';

/**
 * HMAC-SHA256 (RFC 2104) of short strings under one fixed key, base64url: the same bytes as
 * `createHmac('sha256', key).update(text).digest('base64url')`, for about two thirds of its cost. The
 * key's inner and outer pads are computed once and the two hashes are one-shot `crypto.hash` calls over
 * a reused scratch buffer, where createHmac builds a keyed context per call. Every escape page served
 * signs a tap token, so this is on the hot path.
 */
const BLOCK = 64;
const DIGEST = 32;
/** Longer texts (none in practice: tap tokens are a few hundred characters) take createHmac. */
const MAX_TEXT_BYTES = 8192;

export function createHmacSha256(key: Buffer): (text: string) => string {
  // Keys longer than a block are hashed first (RFC 2104, 2): never the case for our 32-byte subkeys.
  const blockKey = key.length > BLOCK ? hash('sha256', key, 'buffer') : key;
  const inner = Buffer.alloc(BLOCK + MAX_TEXT_BYTES, 0x36);
  const outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
  for (let i = 0; i < blockKey.length; i++) {
    inner[i] = 0x36 ^ (blockKey[i] as number);
    outer[i] = 0x5c ^ (blockKey[i] as number);
  }
  return (text) => {
    // Up to 3 bytes per UTF-16 unit in UTF-8: a text that may not fit takes the general path.
    if (text.length * 3 > MAX_TEXT_BYTES) return createHmac('sha256', key).update(text).digest('base64url');
    const length = inner.write(text, BLOCK, 'utf8');
    // The inner digest as a binary string, written into the outer block: no Buffer allocated per call.
    outer.write(hash('sha256', inner.subarray(0, BLOCK + length), 'binary'), BLOCK, 'latin1');
    return hash('sha256', outer, 'base64url');
  };
}
