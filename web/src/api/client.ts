/**
 * The dashboard's one door to the server: same-origin JSON calls to /api with the session cookie.
 * Every failure becomes an ApiError carrying the spec's error body, so a form can put each Zod issue
 * next to the field it names.
 */

export interface ZodIssue {
  path: (string | number)[];
  message: string;
}

export interface ErrorBody {
  error: string;
  message?: string;
  issues?: ZodIssue[];
  retryAfter?: number;
  offending?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? body.error);
  }

  get code(): string {
    return this.body.error;
  }

  /** Each issue's message keyed by its dotted path (`utm.source`, `ab.1.u`); the first one wins. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const issue of this.body.issues ?? []) {
      const key = issue.path.join('.');
      out[key] ??= issue.message;
    }
    return out;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(`/api${path}`, init);
  } catch {
    throw new ApiError(0, { error: 'network', message: 'Cannot reach linkhop. Check your connection.' });
  }
  const text = await response.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const errorBody =
      parsed && typeof parsed === 'object' && 'error' in parsed
        ? (parsed as ErrorBody)
        : { error: `http_${response.status}`, message: `The server answered ${response.status}` };
    if (response.status === 401 && path !== '/session' && !path.startsWith('/auth/')) {
      window.dispatchEvent(new CustomEvent('linkhop:unauthenticated'));
    }
    throw new ApiError(response.status, errorBody);
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** A human sentence for any failure, for a banner. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}
