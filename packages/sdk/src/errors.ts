import type { components } from './openapi.js';

/** The spec's error body: `{error, message, issues?, retryAfter?}`, plus whatever else a code carries. */
export type ErrorBody = components['schemas']['Error'];

/**
 * Every failed call throws this: the HTTP status and the service's error body, so a caller can branch on
 * the stable `error` code (`not_found`, `slug_taken`, `rate_limited`...) and show `message` or `issues`.
 */
export class LinkhopError extends Error {
  override readonly name = 'LinkhopError';
  /** The stable machine-readable code, e.g. `invalid_body`. */
  readonly error: string;
  /** Zod's issues on a 400 from body validation. */
  readonly issues: unknown[] | undefined;
  /** Seconds to wait before trying again (429 and 503). */
  readonly retryAfter: number | undefined;

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message || body.error);
    this.error = body.error;
    this.issues = body.issues;
    this.retryAfter = body.retryAfter;
  }
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as ErrorBody).error === 'string';
}

/** The error a failed response stands for; a body that is not the spec's (a proxy's page) still becomes one. */
export function errorOf(response: Response, parsed: unknown): LinkhopError {
  const body: ErrorBody = isErrorBody(parsed)
    ? { ...parsed, message: parsed.message ?? '' }
    : {
        error: `http_${response.status}`,
        message: typeof parsed === 'string' && parsed ? parsed.slice(0, 500) : response.statusText,
      };
  if (body.retryAfter === undefined) {
    const fromHeader = retryAfterSeconds(response.headers.get('retry-after'));
    if (fromHeader !== undefined) body.retryAfter = fromHeader;
  }
  return new LinkhopError(response.status, body);
}

/** openapi-fetch's `{data, error, response}` to the data, or the LinkhopError it stands for. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok) throw errorOf(result.response, result.error);
  return result.data as T;
}
