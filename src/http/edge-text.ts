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
export const READ_HEADERS: readonly string[] = [
  'authorization',
  'cookie',
  'origin',
  'referer',
  'content-type',
  'sec-fetch-site',
  'x-forwarded-for',
  'x-cron-secret',
  'x-hub-signature-256',
  // Public bio and stats pages resolve their custom hostname from it.
  'host',
];

export const CONTROL_MESSAGE = 'control characters are not allowed';

/** True when `text` holds a control character its field may not carry. */
export function hasForbiddenControl(text: string, prose = false): boolean {
  return (prose ? CONTROL_BUT_LINE_BREAKS : ANY_CONTROL).test(text);
}

/**
 * How deep a JSON body may nest (issue #30): real bodies nest a handful of levels; anything past this is
 * refused as 400 too_deep before any code walks it (src/errors.ts says 64 in its message).
 */
export const MAX_NESTING = 64;

/**
 * True when `value` holds arrays or objects nested more than `limit` deep (`[]` is one level). Walks with
 * an explicit stack, never recursion, and stops at the first node past the limit: a 100,000-level body
 * costs no more than a 65-level one.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  const stack: { node: object; depth: number }[] = [];
  const enter = (inner: unknown, depth: number) => {
    if (inner !== null && typeof inner === 'object') stack.push({ node: inner, depth });
  };
  enter(value, 1);
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.depth > limit) return true;
    const { node, depth } = top;
    if (Array.isArray(node)) for (const inner of node) enter(inner, depth + 1);
    // for...in, not Object.values: no copy of each object (a parsed body has no inherited keys).
    else for (const key in node) enter((node as Record<string, unknown>)[key], depth + 1);
  }
  return false;
}

/** An array or object on the walk: where the walk is in it, and whether its strings are prose. */
interface Frame {
  node: Record<string, unknown> | unknown[];
  /** An object's keys; undefined for an array. */
  keys: string[] | undefined;
  next: number;
  prose: boolean;
  /** The index or key the walk is at, in this frame: the frames' keys are the path. */
  key: string | number;
}

function frameOf(value: unknown, prose: boolean): Frame | undefined {
  if (Array.isArray(value)) return { node: value, keys: undefined, next: 0, prose, key: 0 };
  if (value === null || typeof value !== 'object') return undefined;
  const node = value as Record<string, unknown>;
  return { node, keys: Object.keys(node), next: 0, prose, key: '' };
}

/**
 * The path (Zod-style) of the first string in `value`, at any depth, holding a forbidden control
 * character, or undefined. Object keys are checked too: a key is never prose. It walks in document order
 * with a stack of frames, never recursion: the capture form calls it on bodies no depth check has seen,
 * and recursion on a 5,000-level body overflowed the stack (a 500, issue #30).
 */
export function findControlCharacter(
  value: unknown,
  path: (string | number)[] = [],
  prose = false,
): (string | number)[] | undefined {
  if (typeof value === 'string') return hasForbiddenControl(value, prose) ? path : undefined;
  const stack: Frame[] = [];
  const found = () => [...path, ...stack.map((frame) => frame.key)];
  const first = frameOf(value, prose);
  if (first) stack.push(first);
  for (let frame = stack.at(-1); frame; frame = stack.at(-1)) {
    const { keys } = frame;
    if (frame.next >= (keys ?? (frame.node as unknown[])).length) {
      stack.pop();
      continue;
    }
    const at = frame.next++;
    const key = keys ? (keys[at] as string) : at;
    frame.key = key;
    if (typeof key === 'string' && hasForbiddenControl(key)) return found();
    const inner = (frame.node as Record<string | number, unknown>)[key];
    const innerProse = typeof key === 'string' ? PROSE_KEYS.has(key) : frame.prose;
    if (typeof inner === 'string') {
      if (hasForbiddenControl(inner, innerProse)) return found();
    } else {
      const next = frameOf(inner, innerProse);
      if (next) stack.push(next);
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

/**
 * Path parameters, query and body: 404 for a path that can name nothing, 400 naming the field, 400 too_deep
 * for a body nested past MAX_NESTING (checked first: nothing else may walk such a body, Zod included).
 */
export function inputRefusal(request: FastifyRequest): AppError | undefined {
  if (nestsDeeperThan(request.body)) return appError('too_deep');
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
