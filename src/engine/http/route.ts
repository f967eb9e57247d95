/**
 * Which of the engine's routes a request names, read from its method and raw URL the way its Fastify
 * router did (find-my-way with ignoreTrailingSlash): the path before `?` or `#`, an absolute-form target
 * reduced to its path, one trailing slash ignored, each segment percent-decoded, static paths before
 * `/{slug}`. A path that cannot be decoded names nothing: its 404 (Fastify answered a framework 400).
 */
export type EngineRoute =
  | { name: 'health' }
  | { name: 'links' }
  | { name: 'link'; slug: string }
  | { name: 'visit'; slug: string }
  | { name: 'notFound' };

/** The methods Fastify routed; `app.all` meant these, and any other method met the 404 handler. */
const ROUTED_METHODS = new Set([
  'GET',
  'HEAD',
  'TRACE',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'PUT',
  'POST',
  'QUERY',
]);
const NOT_FOUND: EngineRoute = Object.freeze({ name: 'notFound' });
const HEALTH: EngineRoute = Object.freeze({ name: 'health' });
const LINKS: EngineRoute = Object.freeze({ name: 'links' });
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

export function routeOf(method: string | undefined, url: string | undefined): EngineRoute {
  const segments = pathSegments(url ?? '');
  if (segments === null || method === undefined || !ROUTED_METHODS.has(method)) return NOT_FOUND;
  const readable = method === 'GET' || method === 'HEAD';
  if (segments.length === 1) {
    const [only = ''] = segments;
    if (only === 'health') return readable ? HEALTH : NOT_FOUND;
    return readable && only !== '' ? { name: 'visit', slug: only } : NOT_FOUND;
  }
  if (segments[0] !== 'api' || segments[1] !== 'links') return NOT_FOUND;
  if (segments.length === 2) return LINKS;
  if (segments.length === 3 && segments[2] !== '') return { name: 'link', slug: segments[2] as string };
  return NOT_FOUND;
}

/** `/api/links/a%20b/?x` -> ['api', 'links', 'a b']; null when the path is not one (`*`, bad escapes). */
function pathSegments(url: string): string[] | null {
  let path = url;
  if (path.charCodeAt(0) !== 47) {
    const origin = ABSOLUTE_FORM.exec(path);
    if (origin === null) return null;
    path = path.slice(origin[0].length);
    if (path.charCodeAt(0) !== 47) return null;
  }
  const end = path.search(/[?#]/);
  if (end !== -1) path = path.slice(0, end);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const segments = path.slice(1).split('/');
  try {
    return segments.map((segment) => (segment.includes('%') ? decodeURIComponent(segment) : segment));
  } catch {
    return null;
  }
}
