import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Further attempts after the first, on 429 and 503 only. Default 2; 0 turns retrying off. */
  maxRetries: number;
  /** The wait before retry n when the answer names none: baseDelayMs * 2^n. Default 500. */
  baseDelayMs: number;
  /**
   * The longest wait the client takes on its own. A Retry-After beyond it is not waited out: the call
   * fails at once with a LinkhopError whose `retryAfter` says when to come back. Default 30 000.
   */
  maxDelayMs: number;
  /** How to wait; tests and schedulers may hand in their own. Default setTimeout. */
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** 429: the key's rate limit; 503: the service (its database) is away for a moment. Nothing else is retried. */
const RETRIED = new Set([429, 503]);

/** The wait before the next attempt, or null when the answer should go back to the caller as it is. */
function delayBefore(response: Response, retry: number, options: RetryOptions): number | null {
  if (!RETRIED.has(response.status) || retry >= options.maxRetries) return null;
  const seconds = retryAfterSeconds(response.headers.get('retry-after'));
  const delay = seconds === undefined ? options.baseDelayMs * 2 ** retry : seconds * 1000;
  if (seconds !== undefined && delay > options.maxDelayMs) return null;
  return Math.min(delay, options.maxDelayMs);
}

/**
 * A fetch that sends a request again after a 429 or a 503, waiting what Retry-After asks (or backing off
 * exponentially), at most `maxRetries` times. Each attempt sends a copy, so a body can be sent again; a
 * 429 or 503 means the service did not act on the request, so retrying a POST does not repeat it.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let retry = 0; ; retry++) {
      const response = await fetchImpl(request.clone());
      const delay = delayBefore(response, retry, options);
      if (delay === null) return response;
      await response.body?.cancel();
      await options.sleep(delay);
    }
  };
}
