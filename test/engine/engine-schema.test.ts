import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { urlField } from '../../src/core/urls.js';
import { EngineError } from '../../src/engine/errors.js';
import { ENGINE_SLUG_PATTERN, parseCreateEngineLink } from '../../src/engine/schema.js';

/**
 * The engine checks a create body without Zod (it idles without it); these tests hold it to what the Zod
 * schema it replaced accepted and refused, input by input, including the odd ones.
 */

/** The engine's create schema as it was, Zod over core/urls.ts urlField: the reference. */
const zodCreateBody = z.object({
  url: urlField({ message: '`url` must be a valid http(s) URL', max: 8192 }),
  slug: z.string().regex(ENGINE_SLUG_PATTERN).nullish(),
});

function zodVerdict(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'invalid_url';
  const result = zodCreateBody.safeParse(body);
  if (result.success) return result.data;
  const fields = new Set(result.error.issues.map((issue) => issue.path[0]));
  return fields.has('url') ? 'invalid_url' : 'invalid_slug';
}

function verdict(body: unknown): unknown {
  try {
    return parseCreateEngineLink(body);
  } catch (error) {
    if (error instanceof EngineError) return error.code;
    throw error;
  }
}

const URLS: unknown[] = [
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'http://example.com',
  'HTTPS://EXAMPLE.COM:443/a/../b?q=1#frag',
  'https://example.com/a b',
  'https://münchen.de/straße?q=ä',
  'https://xn--mnchen-3ya.de/',
  'https://例え.テスト/パス',
  'https://user:password@example.com/private',
  'https://user@example.com',
  'https://[::1]:8080/x',
  'http://127.0.0.1/',
  'https://example.com:99999/',
  'javascript:alert(1)',
  'JAVASCRIPT:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'ftp://example.com/file',
  'mailto:a@example.com',
  'file:///etc/passwd',
  'intent://scan/#Intent;scheme=zxing;end',
  'https:example.com',
  'https:/example.com',
  'http://',
  'https://',
  '//example.com/path',
  '/just/a/path',
  'example.com',
  'not a url',
  '',
  ' https://example.com',
  'https://example.com ',
  'https://example.com/\t',
  'https://example.com/a\tb',
  'https://example.com/a\r\nSet-Cookie: x=1',
  'https://example.com/a\u0000b',
  'https://example.com/a\u007fb',
  'https://example.com/a\u0085b',
  'https://example.com/\u200b',
  'https://exa mple.com/',
  'https://example.com/%zz',
  'https://%65xample.com/',
  `https://example.com/${'a'.repeat(8192 - 20)}`,
  `https://example.com/${'a'.repeat(8192 - 19)}`,
  `https://example.com/${'a'.repeat(8200)}`,
  // Shorter than 8192 as given, longer once serialized (each space becomes %20).
  `https://example.com/${' '.repeat(3000)}x`,
  42,
  0,
  true,
  null,
  ['https://example.com'],
  { href: 'https://example.com' },
  { toString: 'https://example.com' },
];

const SLUGS: unknown[] = [
  undefined,
  null,
  'rick',
  'A-b_0',
  'x'.repeat(32),
  'x'.repeat(33),
  '',
  'a.b',
  'a/b',
  'a b',
  'café',
  'ｒｉｃｋ',
  'rick\n',
  '\u0000',
  12,
  true,
  ['rick'],
  { slug: 'rick' },
];

describe('the create body, checked without Zod', () => {
  it('gives the Zod schema its answer for every url, slug and the pair of both', () => {
    for (const url of URLS) {
      for (const slug of SLUGS) {
        const body = slug === undefined ? { url } : { url, slug };
        expect(verdict(body), JSON.stringify(body).slice(0, 120)).toEqual(zodVerdict(body));
      }
    }
  });

  it.each([
    ['null', null],
    ['an array', [{ url: 'https://example.com' }]],
    ['a string', 'https://example.com'],
    ['a number', 42],
    ['true', true],
    ['undefined', undefined],
    ['an empty object', {}],
  ])('a body that is %s is a bad url, as with Zod', (_name, body) => {
    expect(verdict(body)).toBe('invalid_url');
    expect(zodVerdict(body)).toBe('invalid_url');
  });

  it('stores the WHATWG form: lower-cased host, punycode, dot segments resolved, spaces escaped', () => {
    expect(parseCreateEngineLink({ url: 'HTTPS://EXAMPLE.COM:443/a/../b c?q=1#f' })).toEqual({
      url: 'https://example.com/b%20c?q=1#f',
    });
    expect(parseCreateEngineLink({ url: 'https://münchen.de/ä' }).url).toBe(
      'https://xn--mnchen-3ya.de/%C3%A4',
    );
  });

  it('keeps credentials in a URL, as the Zod schema did', () => {
    expect(parseCreateEngineLink({ url: 'https://u:p@example.com/x' }).url).toBe('https://u:p@example.com/x');
  });

  it('a null slug reads as not given; an absent one stays absent', () => {
    expect(parseCreateEngineLink({ url: 'https://example.com', slug: null })).toEqual({
      url: 'https://example.com/',
      slug: null,
    });
    expect(parseCreateEngineLink({ url: 'https://example.com' })).toEqual({ url: 'https://example.com/' });
  });

  it('ignores other keys, and a bad url is reported before a bad slug', () => {
    expect(parseCreateEngineLink({ url: 'https://example.com', extra: { deep: [1] } })).toEqual({
      url: 'https://example.com/',
    });
    expect(verdict({ url: 'javascript:alert(1)', slug: 'a b' })).toBe('invalid_url');
    expect(verdict({ url: 'https://example.com', slug: 'a b' })).toBe('invalid_slug');
  });

  it('reads only own JSON keys: a __proto__ key carrying a url is no url', () => {
    const body = JSON.parse('{"__proto__": {"url": "https://example.com"}}');
    expect(verdict(body)).toBe('invalid_url');
    expect(zodVerdict(body)).toBe('invalid_url');
  });
});
