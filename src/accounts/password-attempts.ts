import { AppError, appError, ERROR_CATALOGUE } from '../errors.js';
import type { RateLimiter } from '../http/rate-limit.js';

/**
 * Every check of a person's password (log-in, password change, account deletion) runs under the same two
 * limits, so no door is a password oracle the log-in's limits do not cover (issue #30): attempts per
 * client address, and failures per account from any address, past which the account is locked for the
 * rest of the window whichever door the guesses came through.
 */

/** A wrong password: what the guard counts as a failure for the account. */
export class WrongPasswordError extends AppError {}

/** The log-in's one generic failure, whatever was wrong. */
export function wrongCredentials(): WrongPasswordError {
  const { status, message } = ERROR_CATALOGUE.invalid_credentials;
  return new WrongPasswordError('invalid_credentials', status, message);
}

export interface PasswordAttemptLimits {
  /** Password checks per client address. */
  perAddress: RateLimiter;
  /** Failed password checks per account (by email), from any address. */
  perAccount: RateLimiter;
}

/** Said the same whether or not the email has an account, so the lock reveals nothing the 401 did not. */
export function accountLocked(retryAfter: number): AppError {
  const minutes = Math.ceil(retryAfter / 60);
  return appError(
    'rate_limited',
    `Too many failed log-ins for this account: it is locked for ${minutes} minute${minutes === 1 ? '' : 's'}; ` +
      'try again then.',
    { retryAfter },
  );
}

export function createPasswordAttempts(limits: PasswordAttemptLimits) {
  return {
    /**
     * Runs `check` (which throws WrongPasswordError on a wrong password) for `email` from `ip`: refused
     * with 429 before any password is compared when the address is over its limit or the account locked.
     */
    async guard<T>(ip: string, email: string, check: () => Promise<T>): Promise<T> {
      const attempt = await limits.perAddress.hit(`login:${ip}`);
      if (!attempt.allowed)
        throw appError('rate_limited', 'Too many log-in attempts', { retryAfter: attempt.resetSeconds });
      const account = `account:${email.trim().toLowerCase()}`;
      const lock = await limits.perAccount.peek(account);
      if (!lock.allowed) throw accountLocked(lock.resetSeconds);
      try {
        return await check();
      } catch (error) {
        if (error instanceof WrongPasswordError) {
          const failure = await limits.perAccount.hit(account);
          if (failure.remaining === 0) throw accountLocked(failure.resetSeconds);
        }
        throw error;
      }
    },
  };
}

export type PasswordAttempts = ReturnType<typeof createPasswordAttempts>;
