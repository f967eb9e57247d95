import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHmacSha256 } from '../../src/analytics/write/hmac-sha256.js';

describe('createHmacSha256', () => {
  it('gives the bytes of createHmac for any text and key, one signer reused', () => {
    for (const keyLength of [16, 32, 64, 65, 100]) {
      const key = randomBytes(keyLength);
      const sign = createHmacSha256(key);
      const texts = [
        '',
        'a',
        'x'.repeat(55),
        'x'.repeat(64),
        randomBytes(300).toString('base64url'),
        'ünïcödé ⋯ “quotes” 😀',
        // Past the scratch buffer: the general path.
        'y'.repeat(5000),
        // A short text after a long one: nothing of the longer one may be hashed again.
        'short',
      ];
      for (const text of texts) {
        expect(sign(text), `${keyLength} ${text.slice(0, 20)}`).toBe(
          createHmac('sha256', key).update(text).digest('base64url'),
        );
      }
    }
  });
});
