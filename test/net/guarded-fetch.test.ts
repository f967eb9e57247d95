import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Server } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher, GuardedFetchError, type GuardedFetcher } from '../../src/net/guarded-fetch.js';

// Self-signed EC certificate for `pinned.test` (valid 2000–2999), generated once for these tests.
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSNl8l7sHOuz5I4xp
zwjl7ImZx8WswTdnuNPJqbWwsNOhRANCAAT7DCXr7zhbnj8UaNcedfXPK5pr2dwA
YVbt9mfNBbpNE8m9+Dcx9Ht909ogJREw9ccw/YQqRN6ZhiuFPqAPzVtT
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBWzCCAQGgAwIBAgIUR8ZjVR74w+gkkUYboT9ZS3VnY8owCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLcGlubmVkLnRlc3QwIBcNMDAwMTAxMDAwMDAwWhgPMjk5OTEy
MzEwMDAwMDBaMBYxFDASBgNVBAMMC3Bpbm5lZC50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAE+wwl6+84W54/FGjXHnX1zyuaa9ncAGFW7fZnzQW6TRPJvfg3
MfR7fdPaICURMPXHMP2EKkTemYYrhT6gD81bU6MrMCkwFgYDVR0RBA8wDYILcGlu
bmVkLnRlc3QwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEA4I/3
l6sfnjHVX13szG65etjaGw07uBGTSjkpgcNpTG8CIADe7jHRJNi6XgpW8W0dG10n
7bFU5J2eFe6sDr2qRenu
-----END CERTIFICATE-----`;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function fetcher(options: Parameters<typeof createGuardedFetcher>[0]): GuardedFetcher {
  const f = createGuardedFetcher(options);
  cleanups.push(() => f.close());
  return f;
}

async function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

/** A TCP server that only counts connections: proof that a refused fetch never reached the socket layer. */
async function countingServer(host = '127.0.0.1') {
  const state = { connections: 0, port: 0 };
  const server = createTcpServer((socket) => {
    state.connections++;
    socket.destroy();
  });
  state.port = await listen(server, host);
  return state;
}

async function httpServer(handler: RequestListener) {
  const server = createHttpServer(handler);
  cleanups.push(() => server.closeAllConnections());
  return `http://127.0.0.1:${await listen(server)}`;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GuardedFetchError);
    return (err as GuardedFetchError).code;
  }
  return 'resolved';
}

/** An injected DNS answering `answer` and remembering which names it was asked. */
function recordingLookup(answer: string[]) {
  const asked: string[] = [];
  const lookup = async (host: string) => {
    asked.push(host);
    return answer;
  };
  return { asked, lookup };
}

const readBody = async (req: IncomingMessage) => {
  let data = '';
  for await (const chunk of req) data += chunk;
  return data;
};

describe('guarded fetch, allowPrivate: false', () => {
  it('refuses http, other schemes, garbage and credentials before any DNS', async () => {
    const { asked, lookup } = recordingLookup(['8.8.8.8']);
    const f = fetcher({ allowPrivate: false, lookup });
    for (const [url, code] of [
      ['http://example.com/', 'scheme_not_allowed'],
      ['ftp://example.com/', 'scheme_not_allowed'],
      ['not a url', 'invalid_url'],
      ['https://user:pass@example.com/', 'invalid_url'],
      ['https://user@example.com/', 'invalid_url'],
    ]) {
      expect(await codeOf(f.checkUrl(url as string))).toBe(code);
      expect(await codeOf(f.request(url as string, { method: 'GET' }))).toBe(code);
    }
    expect(asked).toEqual([]);
  });

  it('refuses literal non-public addresses and localhost names without connecting', async () => {
    const v4 = await countingServer();
    const v6 = await countingServer('::1').catch(() => null); // no IPv6 loopback in some sandboxes
    const f = fetcher({ allowPrivate: false, lookup: async () => ['127.0.0.1'] });
    const urls = [
      `https://127.0.0.1:${v4.port}/`,
      `https://localhost:${v4.port}/`,
      `https://app.localhost.:${v4.port}/`,
      `https://[::ffff:127.0.0.1]:${v4.port}/`,
      `https://2130706433:${v4.port}/`, // WHATWG URL normalises decimal, hex and octal forms to 127.0.0.1
      `https://0x7f.0.0.1:${v4.port}/`,
      'https://10.1.2.3/',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/',
      ...(v6 ? [`https://[::1]:${v6.port}/`] : ['https://[::1]/']),
    ];
    for (const url of urls) {
      expect(await codeOf(f.checkUrl(url))).toBe('address_not_allowed');
      expect(await codeOf(f.request(url, { method: 'GET' }))).toBe('address_not_allowed');
    }
    expect(v4.connections).toBe(0);
    expect(v6?.connections ?? 0).toBe(0);
  });

  it('refuses a host that resolves to a private address, or to a public and a private one', async () => {
    const server = await countingServer();
    for (const answer of [
      ['127.0.0.1'],
      ['8.8.8.8', '127.0.0.1'],
      ['10.0.0.5', '1.1.1.1'],
      ['::ffff:10.0.0.1'],
    ]) {
      const f = fetcher({ allowPrivate: false, lookup: async () => answer });
      const url = `https://internal.test:${server.port}/`;
      expect(await codeOf(f.checkUrl(url))).toBe('address_not_allowed');
      expect(await codeOf(f.request(url, { method: 'POST', body: '{}' }))).toBe('address_not_allowed');
    }
    expect(server.connections).toBe(0);
  });

  it('accepts a host whose every address is public (checkUrl only: no network here)', async () => {
    const f = fetcher({ allowPrivate: false, lookup: async () => ['8.8.8.8', '2001:4860:4860::8888'] });
    await expect(f.checkUrl('https://hooks.example.com:8443/x')).resolves.toBeUndefined();
    await expect(f.checkUrl('https://8.8.8.8/')).resolves.toBeUndefined();
  });

  it('reports DNS failures as dns_failed and a hanging resolver as timeout', async () => {
    const broken = fetcher({
      allowPrivate: false,
      lookup: async () => Promise.reject(new Error('ENOTFOUND')),
    });
    expect(await codeOf(broken.checkUrl('https://nowhere.test/'))).toBe('dns_failed');
    expect(await codeOf(broken.request('https://nowhere.test/', { method: 'GET' }))).toBe('dns_failed');
    const empty = fetcher({ allowPrivate: false, lookup: async () => [] });
    expect(await codeOf(empty.checkUrl('https://nowhere.test/'))).toBe('dns_failed');
    const hanging = fetcher({
      allowPrivate: false,
      timeoutMs: 200,
      lookup: () => new Promise<string[]>(() => {}),
    });
    expect(await codeOf(hanging.checkUrl('https://slow.test/'))).toBe('timeout');
    expect(await codeOf(hanging.request('https://slow.test/', { method: 'GET' }))).toBe('timeout');
  });

  it('DNS rebinding: a check that saw a public address does not let the connection reach 127.0.0.1', async () => {
    const server = await countingServer();
    const url = `https://rebind.test:${server.port}/`;
    let calls = 0;
    const rebinding = async () => (++calls === 1 ? ['8.8.8.8'] : ['127.0.0.1']);
    const f = fetcher({ allowPrivate: false, lookup: rebinding, timeoutMs: 300 });
    await f.checkUrl(url); // first answer: public, saved
    expect(await codeOf(f.request(url, { method: 'POST', body: '{}' }))).toBe('address_not_allowed');

    // Connection first: it resolves exactly once and dials the address it verified (unreachable here).
    calls = 0;
    const g = fetcher({ allowPrivate: false, lookup: rebinding, timeoutMs: 300 });
    expect(['network', 'timeout']).toContain(await codeOf(g.request(url, { method: 'GET' })));
    expect(calls).toBe(1);
    expect(server.connections).toBe(0);
  });
});

describe('guarded fetch, allowPrivate: true', () => {
  it('GETs from a loopback server with Host, user-agent and Accept', async () => {
    const base = await httpServer((req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(
        JSON.stringify({ host: req.headers.host, ua: req.headers['user-agent'], accept: req.headers.accept }),
      );
    });
    const f = fetcher({ allowPrivate: true });
    await expect(f.checkUrl(`${base}/x`)).resolves.toBeUndefined();
    const res = await f.request(`${base}/x`, { method: 'GET', accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(JSON.parse(res.body.toString())).toEqual({
      host: base.slice(7),
      ua: 'linkhop',
      accept: 'text/html',
    });
  });

  it('keepAlive: false asks the server to close the connection after its response', async () => {
    const base = await httpServer((req, res) => res.end(req.headers.connection ?? ''));
    const closing = await fetcher({ allowPrivate: true, keepAlive: false }).request(`${base}/a`, {
      method: 'GET',
    });
    expect(closing.body.toString()).toBe('close');
    expect(closing.headers.connection).toBe('close');
    const keeping = await fetcher({ allowPrivate: true }).request(`${base}/a`, { method: 'GET' });
    expect(keeping.body.toString()).toBe('keep-alive');
  });

  it('POSTs the body and headers', async () => {
    const base = await httpServer(async (req, res) => {
      const body = await readBody(req);
      res.statusCode = 202;
      res.end(
        JSON.stringify({
          method: req.method,
          body,
          sig: req.headers['x-signature'],
          ct: req.headers['content-type'],
        }),
      );
    });
    const f = fetcher({ allowPrivate: true });
    const res = await f.request(`${base}/hook`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Signature': 'abc' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(202);
    expect(JSON.parse(res.body.toString())).toEqual({
      method: 'POST',
      body: '{"a":1}',
      sig: 'abc',
      ct: 'application/json',
    });
  });

  it('caps the body at 1 MiB by default, with and without content-length', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 'a');
    const base = await httpServer((req, res) => {
      if (req.url === '/sized') res.setHeader('content-length', big.length);
      for (let i = 0; i < big.length; i += 64 * 1024) res.write(big.subarray(i, i + 64 * 1024));
      res.end();
    });
    const f = fetcher({ allowPrivate: true });
    expect(await codeOf(f.request(`${base}/sized`, { method: 'GET' }))).toBe('too_large');
    expect(await codeOf(f.request(`${base}/chunked`, { method: 'GET' }))).toBe('too_large');
    const res = await f.request(`${base}/chunked`, { method: 'GET', maxBytes: big.length });
    expect(res.body.length).toBe(big.length);
  });

  it('times out on a server that never answers, or stalls mid-body', async () => {
    const base = await httpServer((req, res) => {
      if (req.url === '/stall') res.write('partial');
    });
    const f = fetcher({ allowPrivate: true });
    for (const path of ['/silent', '/stall']) {
      const started = Date.now();
      expect(await codeOf(f.request(`${base}${path}`, { method: 'GET', timeoutMs: 300 }))).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(2_000);
    }
  });

  it('maps a refused connection to network, naming only the error code', async () => {
    const closed = createTcpServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const f = fetcher({ allowPrivate: true });
    const err = await f.request(`http://127.0.0.1:${port}/`, { method: 'GET' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'network', message: 'The request failed (ECONNREFUSED)' });
  });

  it('follows GET redirects up to 3 hops, re-checking each, and never follows POST', async () => {
    const seen: Array<string | undefined> = [];
    const other = await httpServer((req, res) => {
      seen.push(req.headers.authorization);
      res.end('other');
    });
    const base = await httpServer((req, res) => {
      const hop = /^\/r(\d)$/.exec(req.url ?? '');
      seen.push(req.headers.authorization);
      if (hop)
        res.writeHead(302, { location: Number(hop[1]) > 1 ? `/r${Number(hop[1]) - 1}` : '/done' }).end();
      else if (req.url === '/away') res.writeHead(307, { location: `${other}/x` }).end();
      else if (req.url === '/ftp') res.writeHead(301, { location: 'ftp://127.0.0.1/' }).end();
      else if (req.url === '/creds') res.writeHead(301, { location: 'http://a:b@127.0.0.1/' }).end();
      else res.end('done');
    });
    const f = fetcher({ allowPrivate: true });
    const auth = { authorization: 'Bearer t' };
    expect((await f.request(`${base}/r3`, { method: 'GET', headers: auth })).body.toString()).toBe('done');
    expect(seen.splice(0)).toEqual(Array(4).fill('Bearer t'));
    expect(await codeOf(f.request(`${base}/r4`, { method: 'GET' }))).toBe('too_many_redirects');
    expect((await f.request(`${base}/r1`, { method: 'GET', maxRedirects: 0 })).status).toBe(302);
    const post = await f.request(`${base}/r1`, { method: 'POST', body: 'x' });
    expect([post.status, post.headers.location]).toEqual([302, '/done']);
    seen.length = 0;
    expect((await f.request(`${base}/away`, { method: 'GET', headers: auth })).body.toString()).toBe('other');
    expect(seen).toEqual(['Bearer t', undefined]); // credentials dropped across origins
    expect(await codeOf(f.request(`${base}/ftp`, { method: 'GET' }))).toBe('scheme_not_allowed');
    expect(await codeOf(f.request(`${base}/creds`, { method: 'GET' }))).toBe('invalid_url');
  });
});

describe('connection pinning through the lookup seam', () => {
  it('http: connects to the looked-up address, keeps the hostname in Host, falls back past a dead address', async () => {
    const base = await httpServer((req, res) => res.end(req.headers.host));
    const port = new URL(base).port;
    // 127.0.0.2 refuses (the server listens on 127.0.0.1 only): the next verified address is tried.
    const { asked, lookup } = recordingLookup(['127.0.0.2', '127.0.0.1']);
    const f = fetcher({ allowPrivate: true, lookup });
    const res = await f.request(`http://pinned.test:${port}/`, { method: 'GET' });
    expect(res.body.toString()).toBe(`pinned.test:${port}`);
    expect(asked).toEqual(['pinned.test']);
  });

  it('https: dials the pinned IP with SNI and certificate check on the hostname', async () => {
    const server = createHttpsServer({ key: KEY, cert: CERT }, (req, res) =>
      res.end(JSON.stringify({ sni: (req.socket as TLSSocket).servername, host: req.headers.host })),
    );
    cleanups.push(() => server.closeAllConnections());
    const port = await listen(server);
    const f = fetcher({ allowPrivate: true, ca: CERT, lookup: async () => ['127.0.0.1'] });
    const res = await f.request(`https://pinned.test:${port}/`, { method: 'GET' });
    expect(JSON.parse(res.body.toString())).toEqual({ sni: 'pinned.test', host: `pinned.test:${port}` });
    // Same IP, another name: the certificate is checked against the name, not the pinned address.
    expect(await codeOf(f.request(`https://other.test:${port}/`, { method: 'GET' }))).toBe('network');
  });

  it('errors carry a code and a plain message, and serialise without a stack', () => {
    const err = new GuardedFetchError('timeout', 'The request took too long');
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      code: 'timeout',
      message: 'The request took too long',
    });
    expect(err.name).toBe('GuardedFetchError');
  });
});
