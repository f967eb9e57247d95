import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher } from '../../src/net/guarded-fetch.js';
import { decodeEntities, type LinkPreview, parseOpenGraph, scrapePreview } from '../../src/net/open-graph.js';

const PAGE = 'https://example.com/blog/post?id=1';
const preview = (title: string | null, description: string | null, image: string | null): LinkPreview => ({
  title,
  description,
  image,
});
const NONE = preview(null, null, null);

// [case, html, expected preview for PAGE]
const CASES: ReadonlyArray<readonly [string, string, LinkPreview]> = [
  [
    'plain og tags',
    '<head><meta property="og:title" content="Hello"><meta property="og:description" content="World">' +
      '<meta property="og:image" content="https://cdn.example.com/a.png"></head>',
    preview('Hello', 'World', 'https://cdn.example.com/a.png'),
  ],
  [
    'content before property, self-closing, upper case',
    '<META CONTENT="Swapped" PROPERTY="OG:TITLE"/><meta content=\'Single\' property=\'og:description\' />',
    preview('Swapped', 'Single', null),
  ],
  [
    'unquoted values',
    '<meta property=og:title content=Bare><meta name=description content=desc>',
    preview('Bare', 'desc', null),
  ],
  [
    'entities in values and title',
    '<meta property="og:title" content="Tom &amp; Jerry &lt;3 &quot;x&quot; &#39;y&#39; &#x263A; &#8364; &bogus;">',
    preview('Tom & Jerry <3 "x" \'y\' ☺ € &bogus;', null, null),
  ],
  [
    'relative image, root and path',
    '<meta property="og:image" content="/img/a.png">',
    preview(null, null, 'https://example.com/img/a.png'),
  ],
  [
    'relative image, sibling path',
    '<meta property="og:image" content="cover.jpg">',
    preview(null, null, 'https://example.com/blog/cover.jpg'),
  ],
  [
    'protocol-relative image',
    '<meta property="og:image" content="//cdn.example.net/x.png">',
    preview(null, null, 'https://cdn.example.net/x.png'),
  ],
  ['javascript: image is refused', '<meta property="og:image" content="javascript:alert(1)">', NONE],
  ['data: image is refused', '<meta property="og:image" content="data:image/png;base64,AAAA">', NONE],
  [
    'a bad og:image falls back to twitter:image',
    '<meta property="og:image" content="javascript:x"><meta name="twitter:image" content="t.png">',
    preview(null, null, 'https://example.com/blog/t.png'),
  ],
  [
    'twitter card fallbacks',
    '<meta name="twitter:title" content="TT"><meta name="twitter:description" content="TD">',
    preview('TT', 'TD', null),
  ],
  [
    '<title> and meta description fallbacks, whitespace collapsed',
    '<title>\n  My   &amp; Page\n</title><meta name="description" content="  Plain  description ">',
    preview('My & Page', 'Plain description', null),
  ],
  [
    'og wins over <title> whatever the order',
    '<title>Doc</title><meta property="og:title" content="OG">',
    preview('OG', null, null),
  ],
  ['no metadata at all', '<html><body><p>Hello</p></body></html>', NONE],
  [
    'empty og:title falls back to <title>',
    '<meta property="og:title" content="  "><title>T</title>',
    preview('T', null, null),
  ],
  [
    'commented-out and scripted tags are ignored',
    '<!-- <meta property="og:title" content="Comment"> --><script>var s = \'<meta property="og:title" content="Script">\';</script>' +
      '<style>/* <title>Style</title> */</style><meta property="og:title" content="Real">',
    preview('Real', null, null),
  ],
  [
    'a > inside a quoted value does not end the tag',
    '<meta content="a > b" property="og:title">',
    preview('a > b', null, null),
  ],
  [
    'first of repeated tags wins',
    '<meta property="og:title" content="One"><meta property="og:title" content="Two">',
    preview('One', null, null),
  ],
  [
    '<base href> re-roots relative images',
    '<base href="/assets/"><meta property="og:image" content="i.png">',
    preview(null, null, 'https://example.com/assets/i.png'),
  ],
  ['property given as name=', '<meta name="og:title" content="Named">', preview('Named', null, null)],
  [
    'unterminated markup does not throw',
    '<meta property="og:title" content="Cut',
    preview('Cut', null, null),
  ],
];

describe('parseOpenGraph', () => {
  it('has at least 15 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(15));

  it.each(CASES)('%s', (_name, html, expected) => {
    expect(parseOpenGraph(html, PAGE)).toEqual(expected);
  });

  it('caps title at 300 and description at 1000 code points', () => {
    const html = `<meta property="og:title" content="${'é'.repeat(5000)}"><meta name="description" content="${'😀'.repeat(2000)}">`;
    const out = parseOpenGraph(html, PAGE);
    expect(Array.from(out.title ?? '')).toHaveLength(300);
    expect(Array.from(out.description ?? '')).toHaveLength(1000);
  });

  it('refuses an image URL longer than 2048 characters', () => {
    const long = `https://example.com/${'a'.repeat(2100)}`;
    expect(parseOpenGraph(`<meta property="og:image" content="${long}">`, PAGE).image).toBeNull();
  });

  it('stays fast on hostile input', () => {
    const hostile = '<!--'.repeat(50_000) + '<a x="'.repeat(50_000) + '<title>'.repeat(50_000);
    const started = Date.now();
    parseOpenGraph(hostile, PAGE);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('decodes invalid numeric references to U+FFFD', () => {
    expect(decodeEntities('&#0;&#xD800;&#x110000;&#65;')).toBe('\uFFFD\uFFFD\uFFFDA');
  });
});

describe('scrapePreview through the guarded fetcher', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const fn of closers.splice(0)) await fn();
  });

  async function serve(handler: RequestListener): Promise<string> {
    const server = createServer(handler).listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const fetcher = () => {
    const f = createGuardedFetcher({ allowPrivate: true });
    closers.unshift(() => f.close()); // before the servers, so keep-alive sockets do not hold close()
    return f;
  };

  it('scrapes an HTML page, resolving relative images against the final URL after redirects', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/short') return void res.writeHead(302, { location: '/posts/1' }).end();
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end('<meta property="og:title" content="Post"><meta property="og:image" content="cover.png">');
    });
    const f = fetcher();
    expect(await scrapePreview(f, `${base}/short`)).toEqual(preview('Post', null, `${base}/posts/cover.png`));
  });

  it('returns all null for non-HTML bodies and error statuses', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/json') res.setHeader('content-type', 'application/json');
      else {
        res.statusCode = 404;
        res.setHeader('content-type', 'text/html');
      }
      res.end('<meta property="og:title" content="Nope">');
    });
    const f = fetcher();
    expect(await scrapePreview(f, `${base}/json`)).toEqual(NONE);
    expect(await scrapePreview(f, `${base}/missing`)).toEqual(NONE);
  });

  it('reads only the first 512 KB of a huge page and decodes a declared charset', async () => {
    const base = await serve((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=iso-8859-1');
      res.write(Buffer.from('<title>Caf\xe9</title>', 'latin1'));
      res.end(Buffer.alloc(3 * 1024 * 1024, 'x'));
    });
    const f = fetcher();
    expect(await scrapePreview(f, `${base}/`)).toEqual(preview('Café', null, null));
  });

  it('propagates a refused fetch as GuardedFetchError', async () => {
    const strict = createGuardedFetcher({ allowPrivate: false });
    closers.push(() => strict.close());
    await expect(scrapePreview(strict, 'https://127.0.0.1/')).rejects.toMatchObject({
      code: 'address_not_allowed',
    });
  });
});
