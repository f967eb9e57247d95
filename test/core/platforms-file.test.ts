import { describe, expect, it } from 'vitest';
import {
  appTargetFor,
  BUILTIN_PLATFORMS,
  createPlatformTable,
  PlatformsFileError,
  parsePlatformsFile,
} from '../../src/core/platforms/index.js';

function problemsOf(json: unknown): string[] {
  try {
    parsePlatformsFile(json);
  } catch (error) {
    expect(error).toBeInstanceOf(PlatformsFileError);
    const problems = (error as PlatformsFileError).problems;
    expect((error as Error).message).toContain(problems[0]);
    return problems;
  }
  throw new Error('expected the file to be rejected');
}

const myApp = {
  key: 'myapp',
  name: 'My App',
  hosts: ['myapp.example', 'www.myapp.example'],
  shortHosts: ['my.app'],
  android: { package: 'com.example.myapp' },
  ios: { scheme: 'myapp', appStoreId: '123456789', urlTemplate: 'myapp://{host}{path}{query}' },
  contentTypes: ['post'],
};

describe('parsePlatformsFile', () => {
  it('accepts an array or {platforms: [...]}', () => {
    expect(parsePlatformsFile([myApp]).map((p) => p.key)).toEqual(['myapp']);
    expect(parsePlatformsFile({ platforms: [myApp] }).map((p) => p.key)).toEqual(['myapp']);
    expect(parsePlatformsFile([])).toEqual([]);
  });

  it('fills the optional fields', () => {
    const [p] = parsePlatformsFile([{ key: 'bare', name: 'Bare', hosts: ['bare.example'] }]);
    expect(p).toMatchObject({ key: 'bare', shortHosts: [], android: null, ios: null, contentTypes: [] });
    expect(p?.iosUrl(new URL('https://bare.example/x'))).toBeNull();
    expect(p?.contentTypeOf(new URL('https://bare.example/x'))).toBe('link');
    const [q] = parsePlatformsFile([{ key: 'q1', name: 'Q', hosts: ['q.example'], ios: { scheme: 'q' } }]);
    expect(q?.ios).toEqual({ scheme: 'q', appStoreId: null });
  });

  it('turns a template into an iOS mapper and plugs into the table', () => {
    const table = createPlatformTable(parsePlatformsFile([myApp]));
    expect(table.platforms.length).toBe(BUILTIN_PLATFORMS.length + 1);
    const target = appTargetFor(table, 'https://www.myapp.example/p/1?x=a%20b&y="<>#frag');
    expect(target).toEqual({
      platformKey: 'myapp',
      platformName: 'My App',
      contentType: 'post',
      web: 'https://www.myapp.example/p/1?x=a%20b&y=%22%3C%3E#frag',
      ios: 'myapp://www.myapp.example/p/1?x=a%20b&y=%22%3C%3E',
      iosUniversal: 'https://www.myapp.example/p/1?x=a%20b&y=%22%3C%3E#frag',
      android:
        'intent://www.myapp.example/p/1?x=a%20b&y=%22%3C%3E#Intent;scheme=https;package=com.example.myapp;' +
        'S.browser_fallback_url=https%3A%2F%2Fwww.myapp.example%2Fp%2F1%3Fx%3Da%2520b%26y%3D%2522%253C%253E%23frag;end',
      androidPackage: 'com.example.myapp',
      appStoreId: '123456789',
    });
    expect(table.match('https://my.app/abc')?.key).toBe('myapp');
    expect(table.match('https://myapp.example/')?.key).toBe('myapp');
  });

  it('expands {url} percent-encoded and never re-reads what it put in', () => {
    const [p] = parsePlatformsFile([
      {
        key: 'web',
        name: 'W',
        hosts: ['w.example'],
        ios: { scheme: 'w', urlTemplate: 'w://open?u={url}&h={host}' },
      },
    ]);
    expect(p?.iosUrl(new URL("https://w.example/{path}/it's?q={query}"))).toBe(
      'w://open?u=https%3A%2F%2Fw.example%2F%257Bpath%257D%2Fit%27s%3Fq%3D%7Bquery%7D&h=w.example',
    );
  });

  it('overrides a built-in by key from the file', () => {
    const table = createPlatformTable(
      parsePlatformsFile([
        {
          key: 'youtube',
          name: 'YouTube',
          hosts: ['youtube.com', 'youtu.be'],
          android: { package: 'app.revanced.android.youtube' },
        },
      ]),
    );
    const target = appTargetFor(table, 'https://www.youtube.com/about');
    expect(target?.androidPackage).toBe('app.revanced.android.youtube');
    expect(target?.ios).toBeNull();
    expect(table.match('https://youtu.be/x')?.key).toBe('youtube');
  });

  it('lists every problem with its JSON path', () => {
    const problems = problemsOf([
      {
        key: 'Bad Key',
        hosts: [
          'https://x.example',
          'x.example/path',
          'Upper.example',
          '1.2.3.4',
          '*.wild.example',
          't.co',
          'nodot',
        ],
        shortHosts: ['ok.example', 'x.example:8080'],
        android: { package: 'nodots' },
        ios: { scheme: 'javascript', appStoreId: 544007664 },
        extra: true,
      },
      { key: 'ok', name: '  ', hosts: [] },
      { key: 'ok', name: 'Dup', hosts: ['ok.example'], ios: { scheme: 'HTTP' }, contentTypes: ['Video'] },
      'nonsense',
    ]);
    expect(problems).toEqual([
      'platforms[0].key: must be 2 to 32 characters of a-z, 0-9 and _',
      'platforms[0].name: is required',
      'platforms[0].hosts[0]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].hosts[1]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].hosts[2]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].hosts[3]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].hosts[4]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].hosts[5]: is a link wrapper that points elsewhere, not a platform host',
      'platforms[0].hosts[6]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].shortHosts[1]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      'platforms[0].android.package: must be an Android package name, e.g. "com.example.app"',
      "platforms[0].ios.scheme: must be the app's own scheme, not a web or script one",
      'platforms[0].ios.appStoreId: must be a string',
      'platforms[0]: unknown field "extra"',
      'platforms[1].name: must not be empty',
      'platforms[1].hosts: must list at least one host',
      'platforms[2].ios.scheme: must be a URL scheme: a lower-case letter, then letters, digits, "+", "." or "-"',
      'platforms[2].contentTypes[0]: must be a lower-case word, e.g. "video"',
      'platforms[3]: must be an object',
      'platforms[2].key: duplicate key "ok" (also platforms[1])',
      'platforms[2].hosts[0]: duplicate host "ok.example" (also platforms[0].shortHosts[0])',
    ]);
  });

  it.each(['http', 'https', 'javascript', 'data', 'file', 'vbscript'])('refuses the %s scheme', (scheme) => {
    expect(problemsOf([{ key: 'k1', name: 'K', hosts: ['k.example'], ios: { scheme } }])).toEqual([
      "platforms[0].ios.scheme: must be the app's own scheme, not a web or script one",
    ]);
  });

  it('finds duplicate hosts across and within entries', () => {
    expect(
      problemsOf([
        { key: 'a1', name: 'A', hosts: ['a.example', 'a.example'] },
        { key: 'b1', name: 'B', hosts: ['b.example'], shortHosts: ['a.example'] },
      ]),
    ).toEqual([
      'platforms[0].hosts[1]: duplicate host "a.example" (also platforms[0].hosts[0])',
      'platforms[1].shortHosts[0]: duplicate host "a.example" (also platforms[0].hosts[0])',
    ]);
  });

  it.each([
    ['other://{host}{path}', 'must start with the app\'s scheme, "myapp:"'],
    ['myapp://{host}{fragment}', 'unknown placeholder {fragment}: use {host}, {path}, {query} or {url}'],
    [
      'myapp://open?x="{path}"',
      'must be printable ASCII without spaces, quotes, <, >, \\, `, # or stray braces',
    ],
    ['myapp://open {path}', 'must be printable ASCII without spaces, quotes, <, >, \\, `, # or stray braces'],
    [
      'myapp://{host}{path}#x',
      'must be printable ASCII without spaces, quotes, <, >, \\, `, # or stray braces',
    ],
    ['myapp://{host{path}', 'must be printable ASCII without spaces, quotes, <, >, \\, `, # or stray braces'],
  ])('checks the urlTemplate %s', (urlTemplate, message) => {
    expect(
      problemsOf([{ key: 'myapp', name: 'M', hosts: ['m.example'], ios: { scheme: 'myapp', urlTemplate } }]),
    ).toEqual([`platforms[0].ios.urlTemplate: ${message}`]);
  });

  it('names the wrapper form in its paths', () => {
    expect(problemsOf({ platforms: [{ key: 'x1', name: 'X', hosts: ['BAD'] }], version: 2 })).toEqual([
      'platforms[0].hosts[0]: must be a hostname (lower-case letters, digits, dots and hyphens; no scheme, port or path)',
      '(top level): unknown field "version"',
    ]);
    expect(problemsOf({ platforms: 'nope' })).toEqual(['platforms: must be an array']);
    expect(problemsOf({})).toEqual(['platforms: is required']);
  });

  it.each([null, 'platforms', 42, true])('refuses a file that is not a list: %s', (json) => {
    expect(problemsOf(json)).toEqual([
      'platforms: must be an array of platforms, or an object {"platforms": [...]}',
    ]);
  });

  it('rejects missing required fields by name', () => {
    expect(problemsOf([{}])).toEqual([
      'platforms[0].key: is required',
      'platforms[0].name: is required',
      'platforms[0].hosts: is required',
    ]);
  });
});
