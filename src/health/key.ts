import { createHash } from 'node:crypto';

/** A destination's row key: the SHA-256 (hex) of its URL, so that a 4 KB URL never meets an index limit. */
export function destinationKey(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}
