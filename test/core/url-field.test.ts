import { describe, expect, it } from 'vitest';
import { hasControlCharacter, urlField } from '../../src/core/urls.js';

/** One URL rule for every URL-valued field: controls refused, everything else stored as served. */
describe('urlField', () => {
  const field = urlField({ message: 'must be an http(s) URL', max: 64 });
  const https = urlField({ message: 'must be https', max: 64, httpsOnly: true });
  const issue = (result: ReturnType<typeof field.safeParse>) => result.error?.issues[0]?.message;

  it('stores the WHATWG serialization: lower-case host, encoded path and query, a root slash', () => {
    expect(field.parse('https://EXAMPLE.com/a b')).toBe('https://example.com/a%20b');
    expect(field.parse('HTTP://Example.COM')).toBe('http://example.com/');
    expect(field.parse('https://bücher.example/straße?q=ä')).toBe(
      new URL('https://bücher.example/straße?q=ä').href,
    );
  });

  it('serializing twice changes nothing: stored equals served', () => {
    const once = field.parse('https://EXAMPLE.com/a b?x=ü#f g');
    expect(field.parse(once)).toBe(once);
  });

  it.each([
    ['NUL', 'https://example.com/\u0000'],
    ['CR LF', 'https://example.com/a\r\nSet-Cookie: x=1'],
    ['a tab the parser would drop', 'https://exa\tmple.com/'],
    ['ESC', 'https://example.com/\u001b[31m'],
    ['DEL', 'https://example.com/\u007f'],
  ])('refuses %s with its own message, before the URL check', (_name, value) => {
    expect(issue(field.safeParse(value))).toBe('control characters are not allowed');
  });

  it('refuses what is not an http(s) URL with the field message, and https-only fields refuse http', () => {
    expect(issue(field.safeParse('javascript:alert(1)'))).toBe('must be an http(s) URL');
    expect(issue(field.safeParse(' https://example.com'))).toBe('must be an http(s) URL');
    expect(issue(https.safeParse('http://example.com'))).toBe('must be https');
    expect(https.parse('HTTPS://example.com')).toBe('https://example.com/');
  });

  it('the length limit holds on the serialized form too', () => {
    const spaces = `https://example.com/${' '.repeat(40)}`;
    expect(spaces.length).toBeLessThanOrEqual(64);
    expect(field.safeParse(spaces).success).toBe(false);
  });

  it('hasControlCharacter covers C0 and DEL, not the space or non-ASCII text', () => {
    for (let code = 0; code < 0x20; code++) expect(hasControlCharacter(String.fromCharCode(code))).toBe(true);
    expect(hasControlCharacter('\u007f')).toBe(true);
    expect(hasControlCharacter(' é ü \u00a0 \u2028')).toBe(false);
  });
});
