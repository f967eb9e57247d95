import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreateImportInput, SourceItem } from '../../src/imports/schema.js';
import { type ImportSource, openSource, SourceBusy, SourceError } from '../../src/imports/sources/index.js';
import { createGuardedFetcher } from '../../src/net/guarded-fetch.js';
import { bitlink, FakeBitly } from '../fakes/bitly-server.js';
import { FakeDub } from '../fakes/dub-server.js';
import type { FakeJsonApi } from '../fakes/json-api.js';
import { FakeKutt } from '../fakes/kutt-server.js';
import { FakeShlink } from '../fakes/shlink-server.js';
import { FakeYourls } from '../fakes/yourls-server.js';
import { MangledBitly, withNext } from './mangled-bitly.js';

/**
 * Each source's client against a faithful fake of its API on loopback, through the real path (the
 * SSRF-guarded undici fetcher): paging to the end, the service's own auth header, its error shape turned
 * into a readable reason, and a 429 whose Retry-After is waited out before the same page is asked again.
 */

const fetcher = createGuardedFetcher({ allowPrivate: true });
const waits: number[] = [];
const deps = {
  fetcher,
  sleep: async (ms: number) => {
    waits.push(ms);
  },
  now: () => new Date('2026-01-01T00:00:00Z'),
};
afterAll(() => fetcher.close());
afterEach(() => {
  waits.length = 0;
});

async function readAll(
  source: ImportSource,
): Promise<{ items: SourceItem[]; pages: number; total: number | null }> {
  const items: SourceItem[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let total: number | null = null;
  do {
    const page = await source.fetchPage(cursor);
    items.push(...page.items);
    total = page.total ?? total;
    cursor = page.next;
    pages++;
  } while (cursor !== null && pages < 100);
  return { items, pages, total };
}

async function reason(source: ImportSource): Promise<string> {
  const error = await source.fetchPage(null).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SourceError);
  return (error as SourceError).message;
}

function useFake<T extends FakeJsonApi>(make: () => T): { fake: T } {
  const box = { fake: make() };
  beforeAll(async () => {
    await box.fake.start();
  });
  afterAll(() => box.fake.stop());
  return box;
}

describe('Bitly source (API v4)', () => {
  const box = useFake(() => new FakeBitly().seed(230));
  const open = (input: Partial<Extract<CreateImportInput, { source: 'bitly' }>> = {}) =>
    openSource({ source: 'bitly', token: box.fake.token, baseUrl: box.fake.origin, ...input }, deps);

  it("pages through the default group's bitlinks by pagination.next, with the bearer token", async () => {
    const before = box.fake.requests.length;
    const { items, pages, total } = await readAll(open());
    expect(items).toHaveLength(230);
    expect(pages).toBe(3);
    expect(total).toBe(230);
    const sent = box.fake.requests.slice(before);
    expect(sent[0]?.path).toBe('/v4/user');
    expect(sent.every((request) => request.headers.authorization === `Bearer ${box.fake.token}`)).toBe(true);
    expect(sent.filter((request) => request.query.has('search_after'))).toHaveLength(2);
    expect(items[1]).toEqual({
      key: 'bit.ly/bl2',
      label: 'bit.ly/bl2',
      url: 'https://example.com/bitly/2',
      slug: 'bl2',
      host: null,
      tags: ['even', 'bitly'],
      title: 'Bitly link 2',
      createdAt: '2021-03-03T00:00:00.000Z',
      visits: null,
    });
  });

  it('takes a branded short link over the bit.ly one, and archived links too', async () => {
    box.fake.groups.set('Bbrand', [
      bitlink(1, { custom_bitlinks: ['https://go.brand.test/spring'] }),
      bitlink(2, { archived: true }),
    ]);
    const { items } = await readAll(open({ groupGuid: 'Bbrand' }));
    expect(items.map((item) => [item.host, item.slug, item.key])).toEqual([
      ['go.brand.test', 'spring', 'bit.ly/bl1'],
      [null, 'bl2', 'bit.ly/bl2'],
    ]);
  });

  it('a refused token or an unknown group fails with Bitly’s own words', async () => {
    expect(await reason(open({ token: 'wrong' }))).toBe(
      'Bitly answered HTTP 403: FORBIDDEN: You are currently forbidden to access this resource. Check the API key or token.',
    );
    expect(await reason(open({ groupGuid: 'Bnope' }))).toBe(
      'Bitly answered HTTP 404: NOT_FOUND: Group not found.',
    );
  });

  it('waits out a 429 for as long as Retry-After says, then asks for the same page again', async () => {
    box.fake.throttleNext(2, '3');
    const before = box.fake.requests.length;
    const page = await open({ groupGuid: 'Bg1' }).fetchPage(null);
    expect(page.items).toHaveLength(100);
    expect(waits).toEqual([3000, 3000]);
    expect(box.fake.requests.slice(before).map((request) => request.path)).toEqual([
      '/v4/groups/Bg1/bitlinks',
      '/v4/groups/Bg1/bitlinks',
      '/v4/groups/Bg1/bitlinks',
    ]);
  });

  it('a 5xx is tried again with back-off; a Retry-After beyond 10 s is not waited holding the import', async () => {
    box.fake.failNext(503, 'try later');
    expect((await open({ groupGuid: 'Bg1' }).fetchPage(null)).items).toHaveLength(100);
    expect(waits).toEqual([1000]);
    box.fake.throttleNext(1, '10');
    expect((await open({ groupGuid: 'Bg1' }).fetchPage(null)).items).toHaveLength(100);
    expect(waits).toEqual([1000, 10_000]);
    box.fake.throttleNext(1, '3600');
    const busy = await open({ groupGuid: 'Bg1' })
      .fetchPage(null)
      .catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(SourceBusy);
    expect(busy).toMatchObject({ waitMs: 3_600_000, message: 'Bitly rate-limits us for 3600 s' });
    expect(waits).toEqual([1000, 10_000]);
  });
});

describe('Shlink source (REST v3)', () => {
  const box = useFake(() => new FakeShlink().seed(205));
  const open = (apiKey = box.fake.apiKey) =>
    openSource({ source: 'shlink', baseUrl: `${box.fake.origin}/`, apiKey }, deps);

  it('pages oldest first with X-Api-Key and keeps tags, titles and visit counts', async () => {
    const before = box.fake.requests.length;
    const { items, pages, total } = await readAll(open());
    expect([items.length, pages, total]).toEqual([205, 3, 205]);
    const sent = box.fake.requests.slice(before);
    expect(sent.map((request) => request.query.get('page'))).toEqual(['1', '2', '3']);
    expect(sent.every((request) => request.headers['x-api-key'] === box.fake.apiKey)).toBe(true);
    expect(items[2]).toEqual({
      key: 's.example.test/sh3',
      label: 's.example.test/sh3',
      url: 'https://example.com/shlink/3',
      slug: 'sh3',
      host: 's.example.test',
      tags: ['three', 'shlink'],
      title: 'Shlink title 3',
      createdAt: '2021-03-04T00:00:00.000Z',
      visits: 9,
    });
  });

  it('a wrong API key fails with the problem detail', async () => {
    expect(await reason(open('nope'))).toBe(
      'Shlink answered HTTP 401: Invalid API key: Provided API key does not exist or is invalid. Check the API key or token.',
    );
  });

  it('honours Retry-After given as an HTTP date', async () => {
    box.fake.throttleNext(1, 'Thu, 01 Jan 2026 00:00:07 GMT');
    expect((await open().fetchPage(null)).items).toHaveLength(100);
    expect(waits).toEqual([7000]);
  });
});

describe('Kutt source (API v2)', () => {
  const box = useFake(() => new FakeKutt().seed(120));
  const open = (apiKey = box.fake.apiKey) =>
    openSource({ source: 'kutt', baseUrl: box.fake.origin, apiKey }, deps);

  it('pages by limit and skip up to total, with X-API-KEY; the description stands in for a title', async () => {
    const before = box.fake.requests.length;
    const { items, pages, total } = await readAll(open());
    expect([items.length, pages, total]).toEqual([120, 3, 120]);
    const sent = box.fake.requests.slice(before);
    expect(sent.map((request) => request.query.get('skip'))).toEqual(['0', '50', '100']);
    expect(sent.every((request) => request.headers['x-api-key'] === box.fake.apiKey)).toBe(true);
    const second = items.find((item) => item.slug === 'ku2');
    expect(second).toMatchObject({
      host: 'k.example.test',
      title: 'Kutt description 2',
      visits: 2,
      tags: [],
    });
    expect(second?.createdAt).toBe('2021-03-03T00:00:00.000Z');
  });

  it('a wrong key fails with Kutt’s error; a 429 is waited out', async () => {
    expect(await reason(open('nope'))).toBe(
      'Kutt answered HTTP 401: Unauthorized. Check the API key or token.',
    );
    box.fake.throttleNext(1, '2');
    expect((await open().fetchPage(null)).items).toHaveLength(50);
    expect(waits).toEqual([2000]);
  });
});

describe('Dub source (links API)', () => {
  const box = useFake(() => {
    const fake = new FakeDub().seed(150);
    fake.links.push(fake.link(151, { domain: 'go.dub-brand.test', key: 'launch', archived: true }));
    return fake;
  });
  const open = (apiKey = box.fake.apiKey) =>
    openSource({ source: 'dub', apiKey, baseUrl: box.fake.origin }, deps);

  it('pages by page and pageSize until a short page, archived included, tags by name, the total from /links/count', async () => {
    const before = box.fake.requests.length;
    const { items, pages, total } = await readAll(open());
    expect([items.length, pages, total]).toEqual([151, 2, 151]);
    const sent = box.fake.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual(['/links', '/links/count', '/links']);
    expect(sent.every((request) => request.headers.authorization === `Bearer ${box.fake.apiKey}`)).toBe(true);
    expect(items[0]).toMatchObject({ host: 'go.dub-brand.test', slug: 'launch', key: 'link_000151' });
    expect(items.find((item) => item.slug === 'du7')).toMatchObject({
      host: null,
      tags: ['dub'],
      visits: 70,
    });
  });

  it('a wrong key fails with Dub’s error code and message', async () => {
    expect(await reason(open('dub_wrong'))).toBe(
      'Dub answered HTTP 401: unauthorized: Unauthorized: Invalid API key. Check the API key or token.',
    );
  });
});

describe('YOURLS source', () => {
  const box = useFake(() => new FakeYourls().seed(130));
  const open = (signature = box.fake.signature) =>
    openSource({ source: 'yourls', baseUrl: box.fake.origin, signature }, deps);

  it('pages the core stats action with the signature, reading YOURLS dates and string counts', async () => {
    const before = box.fake.requests.length;
    const { items, pages, total } = await readAll(open());
    expect([items.length, pages, total]).toEqual([130, 2, 130]);
    const sent = box.fake.requests.slice(before);
    expect(sent.map((request) => request.query.get('start'))).toEqual(['0', '100']);
    expect(sent.every((request) => request.query.get('signature') === box.fake.signature)).toBe(true);
    expect(items.find((item) => item.slug === 'yo4')).toEqual({
      key: 'y.example.test/yo4',
      label: 'y.example.test/yo4',
      url: 'https://example.com/yourls/4',
      slug: 'yo4',
      host: 'y.example.test',
      tags: [],
      title: 'YOURLS title 4',
      createdAt: '2021-03-05T00:00:00.000Z',
      visits: 8,
    });
  });

  it('a wrong signature fails with YOURLS’s message', async () => {
    expect(await reason(open('bad'))).toBe(
      'YOURLS answered HTTP 403: Please log in. Check the API key or token.',
    );
  });
});

describe('every API source', () => {
  it('refuses a loopback address unless private sources are allowed (the SSRF guard)', async () => {
    const guarded = createGuardedFetcher({ allowPrivate: false });
    try {
      const source = openSource(
        { source: 'shlink', baseUrl: 'https://127.0.0.1:9/', apiKey: 'k' },
        { ...deps, fetcher: guarded },
      );
      expect(await reason(source)).toBe(
        'Shlink could not be reached: The URL points to an address that is not allowed',
      );
    } finally {
      await guarded.close();
    }
  });
});

describe('malformed answers (issue 30)', () => {
  const box = useFake(() => new MangledBitly().seed(150));
  afterEach(() => {
    box.fake.mangle = null;
  });
  const open = () =>
    openSource({ source: 'bitly', token: box.fake.token, groupGuid: 'Bg1', baseUrl: box.fake.origin }, deps);

  it("a Bitly pagination.next that is not an http(s) URL of Bitly's origin fails with the reason", async () => {
    const cannotRead = (got: string) =>
      `Bitly sent an answer linkhop cannot read: \`pagination.next\` is not an http(s) URL (got ${got})`;
    box.fake.mangle = withNext('not a url');
    expect(await reason(open())).toBe(cannotRead('"not a url"'));
    box.fake.mangle = withNext('javascript:alert(1)');
    expect(await reason(open())).toBe(cannotRead('"javascript:alert(1)"'));
    box.fake.mangle = withNext(42);
    expect(await reason(open())).toBe(cannotRead('42'));
    box.fake.mangle = withNext('https://elsewhere.example/v4/groups/Bg1/bitlinks');
    expect(await reason(open())).toBe(
      `Bitly's next page is on another origin (https://elsewhere.example, not ${box.fake.origin})`,
    );
    // The last page says so with '' (what Bitly sends) or no `next` at all.
    box.fake.mangle = withNext('');
    expect((await open().fetchPage(null)).next).toBeNull();
  });

  it('a page without its list of links, or not an object, is not read as "no more links"', async () => {
    box.fake.mangle = ({ links: _links, ...rest }) => rest;
    expect(await reason(open())).toBe(
      'Bitly sent an answer linkhop cannot read: `links` is not a list (got nothing)',
    );
    box.fake.mangle = () => ['a', 'list'];
    expect(await reason(open())).toBe(
      'Bitly sent an answer linkhop cannot read: the answer is not an object (got ["a","list"])',
    );
    box.fake.mangle = ({ pagination: _pagination, ...rest }) => rest;
    expect(await reason(open())).toBe(
      'Bitly sent an answer linkhop cannot read: `pagination` is not an object (got nothing)',
    );
  });
});
