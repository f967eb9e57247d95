import { z } from 'zod';

/** Shapes shared by every route: the error body, an id in the path, the delete answer. */

export const errorBody = z
  .looseObject({
    error: z.string().describe('stable machine-readable code'),
    message: z.string(),
    issues: z.array(z.unknown()).optional().describe('present on a 400 from body validation'),
    retryAfter: z.number().int().optional().describe('seconds; 429 only'),
  })
  .meta({ id: 'Error' });

export const idParams = z.object({ id: z.string().min(1).max(64) });

/** The error statuses a /v1 route can answer, each with the error body. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorBody> {
  return Object.fromEntries([401, 429, ...statuses].map((status) => [status, errorBody]));
}

/**
 * Operation ids for a plugin registered twice (under /v1 and as the dashboard's /api twin): the twin's
 * ids get a prefix (`listFolders` -> `dashboardListFolders`) so the OpenAPI document keeps them unique.
 */
export function operationIds(prefix: string | undefined): (id: string) => string {
  return (id) => (prefix ? `${prefix}${id[0]?.toUpperCase()}${id.slice(1)}` : id);
}

/** The error statuses of a route outside /v1 (no API key, no key rate limit), each with the error body. */
export function errorBodies(...statuses: number[]): Record<number, typeof errorBody> {
  return Object.fromEntries(statuses.map((status) => [status, errorBody]));
}

/**
 * A documented answer that is not JSON (HTML, CSV, SVG, PNG): named by media type for readers and client
 * generators. Fastify sends these as the string, bytes or stream the handler gives; nothing serializes them.
 */
export function contentResponse(description: string, ...mediaTypes: string[]) {
  return {
    description,
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: z.string() }])),
  };
}

/** A documented answer without a body (a redirect, a 204). */
export function emptyResponse(description: string) {
  return z.undefined().describe(description);
}
