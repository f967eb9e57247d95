import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A constant-time bearer-token check. Both sides are hashed first so the comparison always runs over
 * 32 bytes, whatever the lengths: neither the token's length nor its prefix leaks through timing.
 * No configured token means nothing matches.
 */
export function createBearerCheck(token: string | undefined): (authorization: string | undefined) => boolean {
  if (!token) return () => false;
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    if (typeof authorization !== 'string') return false;
    const match = /^Bearer +(.+)$/i.exec(authorization);
    const given = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    return timingSafeEqual(given, expected) && match !== null;
  };
}
