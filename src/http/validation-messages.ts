/**
 * Plain validation messages (issue #20): "url is required", not "Invalid input: expected nonoptional,
 * received undefined". Each Zod issue becomes a sentence that names its field; messages we wrote ourselves
 * in the schemas are kept, prefixed with the field when they do not name it. The body's `issues` stay
 * Zod's own, for programs; the message is for people.
 */

export interface ValidationIssue {
  code: string;
  path: (string | number)[];
  message: string;
  [param: string]: unknown;
}

/** At most this many issues are spelled out in one message; the rest are counted. */
const SPELLED_OUT = 3;

/** `tags[0]`, `routing.ios`; an issue about the whole body or query has no field. */
export function fieldName(path: readonly (string | number)[]): string {
  let name = '';
  for (const part of path) name += typeof part === 'number' ? `[${part}]` : name ? `.${part}` : part;
  return name;
}

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  date: 'a date',
};

const FORMATS: Record<string, string> = {
  email: 'an email address',
  uuid: 'an id (a UUID)',
  guid: 'an id (a UUID)',
  url: 'a URL',
  datetime: 'an ISO 8601 date-time, e.g. 2026-06-30T23:59:59Z',
  date: 'a date (YYYY-MM-DD)',
};

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

function bound(issue: ValidationIssue, word: 'least' | 'most'): string {
  const limit = Number(word === 'least' ? issue.minimum : issue.maximum);
  const strict = issue.inclusive === false;
  if (issue.origin === 'string') return `at ${word} ${plural(limit + (strict ? 1 : 0), 'character')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return `at ${word} ${plural(limit, 'item')}`;
  if (strict) return `${word === 'least' ? 'more' : 'less'} than ${limit}`;
  return `at ${word} ${limit}`;
}

/** Zod's own wording, recognisable by how it starts; ours never starts this way. */
const ZOD_DEFAULT = /^(Invalid|Too small|Too big|Unrecognized key)/;

function rewrite(issue: ValidationIssue, field: string): string {
  const subject = field || 'The request';
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.expected === 'nonoptional' || /received undefined$/.test(issue.message))
        return `${subject} is required`;
      if (!field) return `The request must be ${KINDS[String(issue.expected)] ?? 'an object'}`;
      return `${field} must be ${KINDS[String(issue.expected)] ?? String(issue.expected)}`;
    }
    case 'too_small':
      return `${subject} must be ${bound(issue, 'least')}`;
    case 'too_big':
      return `${subject} must be ${bound(issue, 'most')}`;
    case 'invalid_format':
      return `${subject} must be ${FORMATS[String(issue.format)] ?? `a valid ${String(issue.format)}`}`;
    case 'invalid_value': {
      const values = Array.isArray(issue.values) ? issue.values.map((value) => JSON.stringify(value)) : [];
      return values.length === 1
        ? `${subject} must be ${values[0]}`
        : `${subject} must be one of ${values.join(', ')}`;
    }
    case 'unrecognized_keys': {
      const keys = Array.isArray(issue.keys) ? issue.keys.map(String) : [];
      const where = field ? ` in ${field}` : '';
      return `Unknown field${keys.length === 1 ? '' : 's'}${where}: ${keys.join(', ')}`;
    }
    case 'not_multiple_of':
      return `${subject} must be a multiple of ${String(issue.divisor)}`;
    default:
      return field ? `${field} is not valid` : 'The request is not valid';
  }
}

/** One issue as a sentence that names its field. */
export function plainIssue(issue: ValidationIssue): string {
  const field = fieldName(issue.path);
  if (ZOD_DEFAULT.test(issue.message)) return rewrite(issue, field);
  // Our own message: kept, with the field in front when it does not already name it.
  const top = String(issue.path[0] ?? '').toLowerCase();
  return !field || issue.message.toLowerCase().includes(top) ? issue.message : `${field}: ${issue.message}`;
}

/** The error body's message: every issue in plain words (the first few), joined. */
export function plainValidationMessage(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return 'The request is not valid';
  const spelled = issues.slice(0, SPELLED_OUT).map(plainIssue);
  const more = issues.length - spelled.length;
  return more > 0 ? `${spelled.join('; ')}; and ${plural(more, 'more problem')}` : spelled.join('; ');
}

/** A byte limit as people read it: 1 MB, 64 KB, 300 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return plural(bytes, 'byte');
}
