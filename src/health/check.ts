import type { CheckAnswer, CheckOutcome } from '../core/health.js';
import { outcomeOf } from '../core/health.js';
import { type GoneSignal, probeFor } from '../core/platforms/gone-signals.js';
import { GuardedFetchError, type GuardedFetcher } from '../net/guarded-fetch.js';

/** One check: 10 s for the whole exchange, redirects followed up to 5 hops, each through the SSRF guard. */
export const CHECK_TIMEOUT_MS = 10_000;
export const CHECK_MAX_REDIRECTS = 5;
/** At most one request a second to one host, across the cluster (health_hosts holds the lease). */
export const HOST_SPACING_MS = 1000;
/** A GET reads at most this much of a page: its status is what counts. */
const GET_BYTES = 16 * 1024;
/** What a server says when it will not answer HEAD, so the check asks again with GET. */
const HEAD_REFUSED = new Set([400, 403, 405, 501]);

export interface CheckResult extends CheckAnswer {
  outcome: CheckOutcome;
  durationMs: number;
  /** Requests made to the destination's host (HEAD, then GET): what the per-host limit counts. */
  requests: number;
}

/**
 * Checks one destination: its platform's "gone" probe when one covers it (a removed YouTube video still
 * answers 200 on its page), else `HEAD`, then `GET` where `HEAD` is refused.
 */
export async function checkDestination(
  fetcher: GuardedFetcher,
  signals: readonly GoneSignal[],
  url: string,
  clock: () => number,
  /** Waits between the HEAD and the GET of one check: one request a second to a host. */
  pause: (ms: number) => Promise<void>,
): Promise<CheckResult> {
  const started = clock();
  let requests = 0;
  const finish = (answer: CheckAnswer, outcome: CheckOutcome = outcomeOf(answer)): CheckResult => ({
    ...answer,
    outcome,
    durationMs: Math.max(0, Math.round(clock() - started)),
    requests,
  });
  const probe = probeFor(signals, url);
  if (probe) {
    // The probe goes to the platform's API host, not the destination's: it counts as one request.
    requests = 1;
    const answer = await ask(fetcher, probe.url, 'GET');
    // Only the probe's own "gone" says the item is gone; anything else from it proves nothing either way.
    if (answer.status !== null && probe.gone.includes(answer.status)) return finish(answer, 'failed');
    if (answer.status !== null && answer.status >= 200 && answer.status < 300) return finish(answer, 'ok');
    return finish(answer, answer.status === null ? outcomeOf(answer) : 'neutral');
  }
  requests = 1;
  const head = await ask(fetcher, url, 'HEAD');
  if (head.status === null || !HEAD_REFUSED.has(head.status)) return finish(head);
  await pause(HOST_SPACING_MS);
  requests = 2;
  return finish(await ask(fetcher, url, 'GET'));
}

async function ask(fetcher: GuardedFetcher, url: string, method: 'HEAD' | 'GET'): Promise<CheckAnswer> {
  try {
    const response = await fetcher.request(url, {
      method,
      timeoutMs: CHECK_TIMEOUT_MS,
      maxRedirects: CHECK_MAX_REDIRECTS,
      maxBytes: GET_BYTES,
      truncate: true,
      accept: 'text/html,application/json;q=0.9,*/*;q=0.8',
    });
    return { status: response.status, error: null };
  } catch (error) {
    if (error instanceof GuardedFetchError) return { status: null, error: error.code };
    return { status: null, error: 'network' };
  }
}
