import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** One /v1 operation, as a tool asks for it: the method, the path under /v1, and its query or JSON body. */
export interface V1Request {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below /v1, starting with a slash: `/links/{id}`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/** /v1's answer as it came: the status, the media type and the bytes. */
export interface V1Response {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * The one thing a tool can do: make one /v1 call with the caller's own key. Its implementations go over
 * HTTP (`linkhop mcp` over stdio) or in-process through the app's router (/v1/mcp); either way the key's
 * check, its scopes, the plan's gates, validation and error bodies are /v1's, not the tool layer's.
 */
export interface V1Caller {
  call(request: V1Request): Promise<V1Response>;
}

/** The path and query string of a request, as both callers send it. */
export function v1Url(request: V1Request): string {
  const query = new URLSearchParams(request.query ?? {}).toString();
  return `/v1${request.path}${query ? `?${query}` : ''}`;
}

/** A tool error carrying an error body in /v1's shape, `{error, message, ...}`. */
export function toolError(
  body: { error: string; message: string } & Record<string, unknown>,
): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * /v1's answer as a tool result: JSON as it is (text, and the same object as structured content); a PNG
 * as an image a model can look at; SVG as its markup. An error is a tool error with /v1's error body.
 */
export function toToolResult(response: V1Response): CallToolResult {
  const type = response.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') {
    const text = response.body.toString('utf8');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (response.status >= 400)
      return { isError: true, content: [{ type: 'text', text }], structuredContent: parsed };
    return { content: [{ type: 'text', text }], structuredContent: parsed };
  }
  if (response.status < 400 && type === 'image/png')
    return { content: [{ type: 'image', data: response.body.toString('base64'), mimeType: 'image/png' }] };
  if (response.status < 400 && type === 'image/svg+xml')
    return { content: [{ type: 'text', text: response.body.toString('utf8') }] };
  return toolError({
    error: 'internal_error',
    message: `The API answered ${response.status} with ${type || 'no content type'}, which this tool does not expect`,
  });
}
