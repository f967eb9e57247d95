import { type V1Caller, v1Url } from './v1-caller.js';

/** How long one /v1 call may take before the tool answers an error instead. */
const TIMEOUT_MS = 30_000;

/**
 * `linkhop mcp`'s caller: each tool call is one HTTP request to a running linkhop (LINKHOP_URL) with the
 * key (LINKHOP_API_KEY), so it works against a remote instance exactly as any /v1 client does, and
 * counts against the key's rate limit like one.
 */
export function createHttpCaller(options: { baseUrl: string; apiKey: string }): V1Caller {
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    async call(request) {
      const response = await fetch(`${base}${v1Url(request)}`, {
        method: request.method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'application/json, image/png, image/svg+xml',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        body: Buffer.from(await response.arrayBuffer()),
      };
    },
  };
}
