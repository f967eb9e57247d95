import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, appError } from '../errors.js';
import { sendError } from './errors.js';

/**
 * One rule for the text the API accepts, applied once for the whole hosted app (and the engine) rather
 * than per schema: NUL, the other C0 controls and DEL are refused everywhere (PostgreSQL refuses NUL in
 * text, and a CR/LF in a name or URL is never meant), except tab, LF and CR in prose fields.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const ANY_CONTROL = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Body keys whose values are prose, where tab, newline and carriage return make sense. */
export const PROSE_KEYS: ReadonlySet<string> = new Set([
  'bio',
  // A CSV file's text (POST /v1/imports): rows end with LF or CRLF, and quoted cells may hold line breaks.
  'csv',
  'description',
  'dmText',
  'html',
  'message',
  'note',
  'text',
]);

/** The headers the app reads; Node's parser refuses most controls, app.inject and proxies may not. */
const READ_HEADERS = [
  'authorization',
  'cookie',
  'origin',
  'referer',
  'content-type',
  'sec-fetch-site',
  'x-forwarded-for',
  'x-cron-secret',
  'x-hub-signature-256',
];

export const CONTROL_MESSAGE = 'control characters are not allowed';

/** True when `text` holds a control character its field may not carry. */
export function hasForbiddenControl(text: string, prose = false): boolean {
  return (prose ? CONTROL_BUT_LINE_BREAKS : ANY_CONTROL).test(text);
}

/**
 * The path (Zod-style) of the first string in `value`, at any depth, holding a forbidden control
 * character, or undefined. Object keys are checked too: a key is never prose.
 */
export function findControlCharacter(
  value: unknown,
  path: (string | number)[] = [],
  prose = false,
): (string | number)[] | undefined {
  if (typeof value === 'string') return hasForbiddenControl(value, prose) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findControlCharacter(value[i], [...path, i], prose);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (hasForbiddenControl(key)) return [...path, key];
      const found = findControlCharacter(inner, [...path, key], PROSE_KEYS.has(key));
      if (found) return found;
    }
  }
  return undefined;
}

/** How ids are minted (crypto.randomUUID): anything else in an id's place names nothing. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isWellFormedId = (value: string): boolean => UUID.test(value);

/** Query parameters that carry an id; a malformed one is a 400 naming it. */
const ID_QUERY_KEYS = new Set([
  'linkId',
  'folderId',
  'pixelId',
  'segmentId',
  'accountId',
  'automationId',
  'sourceLinkId',
]);

function refusal(code: 'invalid_body' | 'invalid_query', path: (string | number)[], message: string) {
  const where = path.length > 0 ? `${path.join('.')}: ` : '';
  return appError(code, `${where}${message}`, { issues: [{ code: 'custom', path, message }] });
}

/** Headers, checked before any hook that reads them (API key and session lookups). */
export function headerRefusal(request: FastifyRequest): AppError | undefined {
  for (const name of READ_HEADERS) {
    const value = request.headers[name];
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    if (values.some((v) => hasForbiddenControl(v))) return refusal('invalid_query', [name], CONTROL_MESSAGE);
  }
  return undefined;
}

/** Path parameters, query and body: 404 for a path that can name nothing, 400 naming the field. */
export function inputRefusal(request: FastifyRequest): AppError | undefined {
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string') continue;
    if (hasForbiddenControl(value) || (name === 'id' && !isWellFormedId(value))) return appError('not_found');
  }
  const query = request.query;
  const inQuery = findControlCharacter(query);
  if (inQuery) return refusal('invalid_query', inQuery, CONTROL_MESSAGE);
  if (query && typeof query === 'object') {
    for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
      if (!ID_QUERY_KEYS.has(name)) continue;
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v !== 'string' || (v !== '' && !isWellFormedId(v))))
        return refusal('invalid_query', [name], `\`${name}\` must be a well-formed id`);
    }
  }
  const inBody = findControlCharacter(request.body);
  if (inBody) return refusal('invalid_body', inBody, CONTROL_MESSAGE);
  return undefined;
}

/** Routes the rule covers: the APIs and every public form post; never a visit's GET of a link. */
function isCovered(request: FastifyRequest): boolean {
  const url = request.routeOptions.url ?? '';
  // The provider's deliveries are third-party text, signed; the intake decides what to keep. The capture
  // form answers 204 whatever it is sent (hosted-service.md), so it applies the rule itself, silently.
  if (url === '/api/public/social/webhook' || url === '/api/public/capture') return false;
  if (/^\/(v1|api)(\/|$)/.test(url)) return true;
  return request.method !== 'GET' && request.method !== 'HEAD';
}

/** Registers the rule on `app` (once, at the root, before any plugin). */
export function registerEdgeTextGuard(
  app: FastifyInstance,
  send: (reply: FastifyReply, error: AppError) => FastifyReply = sendError,
): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!isCovered(request)) return;
    const error = headerRefusal(request);
    if (error) return send(reply, error);
  });
  app.addHook('preValidation', async (request, reply) => {
    if (!isCovered(request)) return;
    const error = inputRefusal(request);
    if (error) return send(reply, error);
  });
}
