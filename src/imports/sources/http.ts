import { GuardedFetchError, type GuardedFetcher } from '../../net/guarded-fetch.js';

/**
 * The one HTTP path of every API source: GET through the SSRF guard (undici, the address checked at
 * connect), JSON only, no redirects followed (an API key header must not travel to another origin), a 429
 * waits as long as Retry-After says (a long one hands the import back until then: SourceBusy), and a 5xx
 * or a dropped connection is tried again with back-off, within a page's budget. Anything else is the
 * source's answer, and ends the import with the source's own words.
 */

/** A problem with the source as a whole (bad key, unreachable): the import fails with this message. */
export class SourceError extends Error {
  override readonly name: string = 'SourceError';
}

/**
 * The source asks us to come back later (a 429 whose Retry-After is longer than a worker waits holding an
 * import): the worker hands the import back until then and serves others meanwhile.
 */
export class SourceBusy extends SourceError {
  override readonly name = 'SourceBusy';
  constructor(
    readonly waitMs: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SourceHttpDeps {
  fetcher: Pick<GuardedFetcher, 'request'>;
  /** Waits for Retry-After and back-off; tests hand in one that records the wait and returns at once. */
  sleep: (ms: number) => Promise<void>;
  now: () => Date;
}

export interface SourceApi {
  /** The service's name as users know it: "Bitly". */
  name: string;
  headers: Record<string, string>;
  /** The source's own explanation, read from its error body. */
  describe(body: unknown): string | null;
}

export interface SourceHttp {
  getJson(url: string): Promise<unknown>;
}

const MAX_ATTEMPTS = 6;
/**
 * A Retry-After up to this long is waited out holding the import; a longer one hands it back (SourceBusy)
 * so that other organizations' imports run in the meantime.
 */
export const MAX_HELD_WAIT_MS = 10_000;
const RESPONSE_MAX_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 20_000;
/**
 * One page's retries (dropped connections, timeouts, 5xx) stop being tried after this much time: a source
 * that answers slowly holds a worker for about a minute per page at most, then fails the import.
 */
const PAGE_BUDGET_MS = 60_000;
const REFUSALS = new Set(['invalid_url', 'scheme_not_allowed', 'address_not_allowed']);

/** 1, 2, 4, 8, 16 seconds. */
const backoff = (attempt: number) => 1000 * 2 ** (attempt - 1);

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3), in milliseconds; null when absent. */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (header === undefined || header.trim() === '') return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function createSourceHttp(deps: SourceHttpDeps, api: SourceApi): SourceHttp {
  const refused = (status: number, body: unknown) => {
    const said = api.describe(body);
    const hint = status === 401 || status === 403 ? ' Check the API key or token.' : '';
    const text = `${api.name} answered HTTP ${status}${said ? `: ${said}` : ''}`;
    return new SourceError(`${text}${text.endsWith('.') ? '' : '.'}${hint}`);
  };

  async function fetchOnce(url: string) {
    return deps.fetcher.request(url, {
      method: 'GET',
      headers: api.headers,
      accept: 'application/json',
      maxRedirects: 0,
      maxBytes: RESPONSE_MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
    });
  }

  return {
    async getJson(url) {
      const began = deps.now().getTime();
      const spent = () => deps.now().getTime() - began;
      for (let attempt = 1; ; attempt++) {
        let response: Awaited<ReturnType<typeof fetchOnce>>;
        try {
          response = await fetchOnce(url);
        } catch (error) {
          const guarded = error instanceof GuardedFetchError ? error : null;
          const message = guarded?.message ?? 'The request failed';
          const notAllowed = guarded !== null && REFUSALS.has(guarded.code);
          if (notAllowed || attempt >= MAX_ATTEMPTS || spent() + backoff(attempt) > PAGE_BUDGET_MS) {
            throw new SourceError(`${api.name} could not be reached: ${message}`);
          }
          await deps.sleep(backoff(attempt));
          continue;
        }
        const { status } = response;
        const body = parseJson(response.body);
        if (status >= 200 && status < 300) {
          if (body === undefined)
            throw new SourceError(`${api.name} answered with something that is not JSON`);
          return body;
        }
        if (status === 429) {
          const wait = retryAfterMs(response.headers['retry-after'], deps.now()) ?? backoff(attempt);
          if (wait > MAX_HELD_WAIT_MS) {
            throw new SourceBusy(wait, `${api.name} rate-limits us for ${Math.ceil(wait / 1000)} s`);
          }
          if (attempt >= MAX_ATTEMPTS) throw new SourceError(`${api.name} kept answering 429 (rate limit)`);
          await deps.sleep(wait);
          continue;
        }
        if (status >= 500 && attempt < MAX_ATTEMPTS && spent() + backoff(attempt) <= PAGE_BUDGET_MS) {
          await deps.sleep(backoff(attempt));
          continue;
        }
        if (status >= 300 && status < 400) {
          const where = response.headers.location ? ` to ${response.headers.location}` : '';
          throw new SourceError(`${api.name} redirects${where}: give that address as baseUrl`);
        }
        throw refused(status, body);
      }
    },
  };
}
