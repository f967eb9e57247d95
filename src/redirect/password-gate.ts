import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The password gate's cookie: after a correct password the visitor gets `lh_pw_<linkId>` holding an
 * expiry and an HMAC over (link id, expiry, password hash) keyed by SESSION_SECRET. Changing the
 * password invalidates every cookie issued for the old one.
 */

const COOKIE_LIFETIME_SECONDS = 12 * 3600;

export function passwordCookieName(linkId: string): string {
  return `lh_pw_${linkId.replace(/[^a-zA-Z0-9-]/g, '')}`;
}

export function createPasswordCookies(secret: string, now: () => number = Date.now) {
  const sign = (linkId: string, passwordHash: string, expires: number) =>
    createHmac('sha256', secret).update(`${linkId}\n${expires}\n${passwordHash}`).digest('base64url');

  return {
    maxAge: COOKIE_LIFETIME_SECONDS,
    issue(linkId: string, passwordHash: string): string {
      const expires = Math.floor(now() / 1000) + COOKIE_LIFETIME_SECONDS;
      return `${expires}.${sign(linkId, passwordHash, expires)}`;
    },
    verify(linkId: string, passwordHash: string, value: string | undefined): boolean {
      if (!value) return false;
      const [expiresText, signature] = value.split('.');
      const expires = Number(expiresText);
      if (!signature || !Number.isInteger(expires) || expires * 1000 < now()) return false;
      const expected = Buffer.from(sign(linkId, passwordHash, expires));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type PasswordCookies = ReturnType<typeof createPasswordCookies>;
