import type { Redis } from 'ioredis';
import { CAPTURE_RATE_LIMIT } from '../audience/routes.js';
import { createFallbackRateLimiter, type RateLimitMode } from '../http/fallback-rate-limit.js';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
  type RateLimitOptions,
} from '../http/rate-limit.js';
import { V1_RATE_LIMIT } from '../http/v1-auth.js';

/**
 * Every rate limit of the hosted service, in one place: shared by all instances through Redis when it is
 * configured (and per instance while Redis is away), per instance otherwise. SECURITY.md lists them.
 */

const PASSWORD_ATTEMPTS = { limit: 10, windowSeconds: 300 } as const;
/** Wrong passwords for one link from all addresses together: rotating addresses buys no more guesses. */
const PASSWORD_FAILURES_PER_LINK = { limit: 50, windowSeconds: 300 } as const;
const LOGIN_ATTEMPTS = { limit: 20, windowSeconds: 300 } as const;
/** Failed logins for one account from any address, before it is locked for the rest of the window. */
const LOGIN_FAILURES_PER_ACCOUNT = { limit: 10, windowSeconds: 900 } as const;
/** Sign-up requests per client address, and sign-up mails per email address (no inbox flooding). */
const SIGNUP_ATTEMPTS = { limit: 10, windowSeconds: 3600 } as const;
const SIGNUP_MAILS_PER_EMAIL = { limit: 3, windowSeconds: 3600 } as const;
const KEY_CREATIONS_PER_ORG = { limit: 10, windowSeconds: 3600 } as const;
/** Invites sent per organization: no organization relays mail through the service's address. */
const INVITES_PER_ORG = { limit: 20, windowSeconds: 3600 } as const;
/** Invite accepts per client address: a new person's costs a scrypt (the token itself is unguessable). */
const INVITE_ACCEPTS = { limit: 30, windowSeconds: 300 } as const;

export interface Limits {
  v1: RateLimiter;
  login: RateLimiter;
  accountLoginFailures: RateLimiter;
  keyCreations: RateLimiter;
  invites: RateLimiter;
  inviteAccepts: RateLimiter;
  signup: RateLimiter;
  signupMails: RateLimiter;
  capture: RateLimiter;
  password: RateLimiter;
  passwordFailures: RateLimiter;
  /** Which count decides now (the /v1 limit's): for /health. */
  mode(): RateLimitMode;
}

/** `now`: the service's clock, which every window counts on. */
export function createLimits(now: () => number, redis?: { publisher: Redis; up: () => boolean }): Limits {
  const limiter = (limit: RateLimitOptions, prefix: string): RateLimiter & { mode?(): RateLimitMode } => {
    const options = { ...limit, now };
    return redis
      ? createFallbackRateLimiter({
          shared: createRedisRateLimiter(redis.publisher, { ...options, prefix }),
          local: createMemoryRateLimiter(options),
          sharedUp: redis.up,
        })
      : createMemoryRateLimiter(options);
  };
  const v1 = limiter(V1_RATE_LIMIT, 'linkhop:rl:v1:');
  return {
    v1,
    login: limiter(LOGIN_ATTEMPTS, 'linkhop:rl:login:'),
    accountLoginFailures: limiter(LOGIN_FAILURES_PER_ACCOUNT, 'linkhop:rl:login-account:'),
    keyCreations: limiter(KEY_CREATIONS_PER_ORG, 'linkhop:rl:key-create:'),
    invites: limiter(INVITES_PER_ORG, 'linkhop:rl:invites:'),
    inviteAccepts: limiter(INVITE_ACCEPTS, 'linkhop:rl:invite-accept:'),
    signup: limiter(SIGNUP_ATTEMPTS, 'linkhop:rl:signup:'),
    signupMails: limiter(SIGNUP_MAILS_PER_EMAIL, 'linkhop:rl:signup-mail:'),
    capture: limiter(CAPTURE_RATE_LIMIT, 'linkhop:rl:capture:'),
    password: limiter(PASSWORD_ATTEMPTS, 'linkhop:rl:pw:'),
    passwordFailures: limiter(PASSWORD_FAILURES_PER_LINK, 'linkhop:rl:pw-link:'),
    mode: () => v1.mode?.() ?? 'local',
  };
}
