import { z } from 'zod';
import { WRAPPER_HOSTS } from './match.js';
import type { Platform } from './types.js';
import { cleanPart, enc, isForbiddenScheme } from './url-parts.js';

/** A PLATFORMS_FILE that cannot be used; `problems` names the JSON path of each one. */
export class PlatformsFileError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`PLATFORMS_FILE is invalid (${problems.length} problem(s)):\n- ${problems.join('\n- ')}`);
    this.name = 'PlatformsFileError';
    this.problems = problems;
  }
}

const KEY = /^[a-z0-9_]{2,32}$/;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
// At least two labels and a TLD that is not all digits, so an IPv4 address is not a hostname here.
const HOSTNAME = new RegExp(`^(?=.{1,253}$)(?:${LABEL}\\.)+(?!\\d+$)${LABEL}$`);
const ANDROID_PACKAGE = /^[a-zA-Z][\w]*(\.[a-zA-Z][\w]*)+$/;
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
const CONTENT_TYPE = /^[a-z][a-z0-9_]{0,31}$/;
const PLACEHOLDER = /\{([^{}]*)\}/g;
const TEMPLATE_VARS = new Set(['host', 'path', 'query', 'url']);

const hostname = z
  .string()
  .regex(
    HOSTNAME,
    'must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
  )
  .refine((host) => !WRAPPER_HOSTS.has(host), 'is a link wrapper that points elsewhere, not a platform host');

const ios = z
  .strictObject({
    scheme: z
      .string()
      .max(64, 'must be at most 64 characters')
      .regex(SCHEME, 'must be a URL scheme: a lower-case letter, then letters, digits, "+", "." or "-"')
      .refine(
        (scheme) => !SCHEME.test(scheme) || !isForbiddenScheme(scheme),
        "must be the app's own scheme, not a web or script one",
      ),
    appStoreId: z
      .string()
      .regex(/^\d{1,12}$/, 'must be the numeric App Store id as a string, e.g. "544007664"')
      .nullable()
      .optional(),
    urlTemplate: z.string().max(500, 'must be at most 500 characters').optional(),
  })
  .superRefine((value, ctx) => {
    const template = value.urlTemplate;
    // a bad scheme is reported on its own; checking the template against it would only repeat it
    if (template === undefined || !SCHEME.test(value.scheme) || isForbiddenScheme(value.scheme)) return;
    const problem = templateProblem(template, value.scheme);
    if (problem) ctx.addIssue({ code: 'custom', path: ['urlTemplate'], message: problem });
  });

function templateProblem(template: string, scheme: string): string | null {
  if (!template.startsWith(`${scheme}:`)) return `must start with the app's scheme, "${scheme}:"`;
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (!TEMPLATE_VARS.has(name ?? ''))
      return `unknown placeholder {${name}}: use {host}, {path}, {query} or {url}`;
  }
  const literal = template.replace(PLACEHOLDER, '');
  if (/[^!-~]|["'<>\\`#{}]/.test(literal)) {
    return 'must be printable ASCII without spaces, quotes, <, >, \\, `, # or stray braces';
  }
  return null;
}

const entry = z.strictObject({
  key: z.string().regex(KEY, 'must be 2 to 32 characters of a-z, 0-9 and _'),
  name: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  hosts: z.array(hostname).min(1, 'must list at least one host'),
  shortHosts: z.array(hostname).optional(),
  android: z
    .strictObject({
      package: z.string().regex(ANDROID_PACKAGE, 'must be an Android package name, e.g. "com.example.app"'),
    })
    .nullable()
    .optional(),
  ios: ios.nullable().optional(),
  contentTypes: z.array(z.string().regex(CONTENT_TYPE, 'must be a lower-case word, e.g. "video"')).optional(),
});
type Entry = z.infer<typeof entry>;

const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type') {
    return issue.input === undefined
      ? 'is required'
      : `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
  }
  if (issue.code === 'unrecognized_keys') {
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  }
  return undefined;
};

function pathOf(path: readonly PropertyKey[]): string {
  let out = 'platforms';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/** Duplicate keys and hosts across the file, read leniently from the raw entries. */
function duplicateProblems(list: unknown[]): string[] {
  const problems: string[] = [];
  const keys = new Map<string, number>();
  const hosts = new Map<string, string>();
  list.forEach((raw, i) => {
    if (typeof raw !== 'object' || raw === null) return;
    const { key, hosts: own, shortHosts } = raw as Record<string, unknown>;
    if (typeof key === 'string') {
      const first = keys.get(key);
      if (first === undefined) keys.set(key, i);
      else problems.push(`platforms[${i}].key: duplicate key "${key}" (also platforms[${first}])`);
    }
    for (const [field, value] of [
      ['hosts', own],
      ['shortHosts', shortHosts],
    ] as const) {
      if (!Array.isArray(value)) continue;
      value.forEach((host, j) => {
        if (typeof host !== 'string') return;
        const here = `platforms[${i}].${field}[${j}]`;
        const first = hosts.get(host);
        if (first === undefined) hosts.set(host, here);
        else problems.push(`${here}: duplicate host "${host}" (also ${first})`);
      });
    }
  });
  return problems;
}

function expand(template: string, url: URL): string {
  // One pass: a value put in cannot be read as another placeholder.
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    if (name === 'host') return url.host;
    if (name === 'path') return cleanPart(url.pathname);
    if (name === 'query') return cleanPart(url.search);
    return enc(url.href);
  });
}

function toPlatform(e: Entry): Platform {
  const contentTypes = e.contentTypes ?? [];
  // A JSON platform cannot tell paths apart: every URL on its hosts is app content.
  const type = contentTypes.length === 1 && contentTypes[0] ? contentTypes[0] : 'link';
  const template = e.ios?.urlTemplate;
  return {
    key: e.key,
    name: e.name,
    hosts: e.hosts,
    shortHosts: e.shortHosts ?? [],
    android: e.android ? { package: e.android.package } : null,
    ios: e.ios ? { scheme: e.ios.scheme, appStoreId: e.ios.appStoreId ?? null } : null,
    contentTypes,
    iosUrl: template ? (url) => expand(template, url) : () => null,
    contentTypeOf: () => type,
  };
}

/**
 * Validates the parsed JSON of PLATFORMS_FILE (an array of platforms, or `{platforms: [...]}`) and turns
 * each entry into a Platform. Throws PlatformsFileError listing every problem.
 */
export function parsePlatformsFile(json: unknown): Platform[] {
  const wrapped = typeof json === 'object' && json !== null && !Array.isArray(json);
  const schema = wrapped ? z.strictObject({ platforms: z.array(entry) }) : z.array(entry);
  const result = schema.safeParse(json, { error: errorMap, reportInput: true });
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => {
        const path = wrapped ? issue.path.slice(1) : issue.path;
        if (wrapped && issue.path.length === 0) return `(top level): ${issue.message}`;
        return `${pathOf(path)}: ${issue.message}`;
      });
  if (!wrapped && !Array.isArray(json)) {
    throw new PlatformsFileError([
      'platforms: must be an array of platforms, or an object {"platforms": [...]}',
    ]);
  }
  const list = wrapped ? (json as { platforms?: unknown }).platforms : json;
  if (Array.isArray(list)) problems.push(...duplicateProblems(list));
  if (problems.length > 0 || !result.success) throw new PlatformsFileError(problems);
  const entries: Entry[] = Array.isArray(result.data) ? result.data : result.data.platforms;
  return entries.map(toPlatform);
}
