/**
 * Bio handles. The pattern: 3 to 30 characters of [a-z0-9._], not starting or ending with a dot and
 * never two dots in a row (so a handle is never mistaken for a file name or a domain fragment).
 * Handles are compared and stored lowercased; the caller's casing is not kept.
 */

export const HANDLE_PATTERN = /^(?!.*\.\.)[a-z0-9_][a-z0-9._]{1,28}[a-z0-9_]$/;

export const HANDLE_RULE =
  'Handles are 3 to 30 characters of a-z, 0-9, dot and underscore, not starting or ending with a dot, without two dots in a row';

/**
 * Words nobody can claim: our own routes and products, and names a visitor could take for the service
 * itself (admin, support, login...). Checked after lowercasing.
 */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  // routes and products of this service
  'api',
  'v1',
  'v2',
  'docs',
  'openapi',
  'openapi.json',
  'internal',
  'health',
  'assets',
  'static',
  'public',
  'bio',
  'media',
  'media_kit',
  'mediakit',
  'kit',
  'links',
  'link',
  'folders',
  'pixels',
  'webhooks',
  'audience',
  'capture',
  'broadcasts',
  'broadcast',
  'segments',
  'analytics',
  'stats',
  'automations',
  'dm',
  'keys',
  'session',
  'auth',
  'signup',
  'signin',
  'login',
  'logout',
  'register',
  'tap',
  'qr',
  'og',
  'receipt',
  'receipts',
  'well_known',
  'favicon.ico',
  'robots.txt',
  'sitemap.xml',
  // names people would take for the service or its staff
  'linkhop',
  'admin',
  'administrator',
  'root',
  'system',
  'sysadmin',
  'staff',
  'team',
  'official',
  'support',
  'help',
  'helpdesk',
  'contact',
  'about',
  'security',
  'abuse',
  'legal',
  'privacy',
  'terms',
  'tos',
  'status',
  'billing',
  'pricing',
  'plans',
  'upgrade',
  'account',
  'accounts',
  'settings',
  'dashboard',
  'app',
  'www',
  'mail',
  'email',
  'ftp',
  'blog',
  'news',
  'press',
  'jobs',
  'careers',
  'dev',
  'developer',
  'developers',
  'test',
  'null',
  'undefined',
  'anonymous',
  'user',
  'users',
  'me',
  'you',
  'everyone',
  'home',
  'index',
  'search',
  'explore',
  'new',
  'edit',
  'delete',
  'cdn',
]);

/** The stored form of a handle as typed: trimmed and lowercased. */
export function normaliseHandle(input: string): string {
  return input.trim().toLowerCase();
}

export type HandleCheck = { ok: true; handle: string } | { ok: false; reason: string };

export function checkHandle(input: string): HandleCheck {
  const handle = normaliseHandle(input);
  if (!HANDLE_PATTERN.test(handle)) return { ok: false, reason: HANDLE_RULE };
  if (RESERVED_HANDLES.has(handle)) return { ok: false, reason: `The handle "${handle}" is reserved` };
  return { ok: true, handle };
}
