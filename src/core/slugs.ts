const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// The largest multiple of 62 below 256: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/** A source of random bytes, handed in so tests can force collisions. */
export type RandomBytes = (size: number) => Uint8Array;

/** A uniformly random slug of `length` letters and digits, by rejection sampling over random bytes. */
export function generateSlug(length: number, randomBytes: RandomBytes): string {
  let slug = '';
  while (slug.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      slug += ALPHABET[byte % ALPHABET.length];
      if (slug.length === length) break;
    }
  }
  return slug;
}
