import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHead } from '../../src/redirect/redirect-front.js';
import { type RunningEngine, startEngine } from '../helpers/engine.js';
import { UA } from '../helpers/user-agents.js';

/**
 * The redirect front (src/redirect/redirect-front.ts) reads connections before node:http. These tests
 * speak raw bytes to a real engine, because what matters is framing: which requests the front answers,
 * that everything else reaches node:http byte for byte and in order, and that its connections close when
 * they should. The front's own answers are recognisable: a redirect carries `Content-Length: 0`, where
 * node:http frames the same empty body as chunked.
 */

const YT = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

interface Answer {
  status: number;
  head: string;
  headers: Record<string, string>;
  body: string;
}

/** Splits a byte stream into responses; `methods` says which were HEADs (no body whatever the headers). */
function responsesOf(bytes: Buffer, methods: string[]): Answer[] {
  const text = bytes.toString('latin1');
  const answers: Answer[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) throw new Error(`unterminated head: ${JSON.stringify(text.slice(at, at + 200))}`);
    const head = text.slice(at, end);
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = end + 4;
    let body = '';
    if (methods[answers.length] === 'HEAD') {
      // no body
    } else if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const sizeEnd = text.indexOf('\r\n', at);
        const size = Number.parseInt(text.slice(at, sizeEnd), 16);
        body += text.slice(sizeEnd + 2, sizeEnd + 2 + size);
        at = sizeEnd + 2 + size + 2;
        if (size === 0) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = text.slice(at, at + length);
      at += length;
    }
    answers.push({ status: Number(statusLine.split(' ')[1]), head, headers, body });
  }
  return answers;
}

/** Writes `parts` (pausing `gapMs` between them) and collects every byte until the server closes. */
function exchange(port: number, parts: string[], gapMs = 0): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        socket.write(part, 'latin1');
      }
    });
  });
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: s.example\r\n${extra}\r\n`;
const last = (path: string) => get(path, 'Connection: close\r\n');

describe('readHead: the subset the front takes', () => {
  const ok = 'GET /yt?a=1 HTTP/1.1\r\nHost: s.example\r\nUser-Agent:  x y \r\nConnection: keep-alive';

  it('reads a well-formed GET or HEAD as node:http names it', () => {
    expect(readHead(ok)).toEqual({
      method: 'GET',
      url: '/yt?a=1',
      headers: { host: 's.example', 'user-agent': 'x y', connection: 'keep-alive' },
    });
    expect(readHead('HEAD /yt HTTP/1.1\r\nhost: a')?.method).toBe('HEAD');
  });

  it.each([
    ['another method', 'POST /yt HTTP/1.1\r\nHost: a'],
    ['HTTP/1.0', 'GET /yt HTTP/1.0\r\nHost: a'],
    ['no Host', 'GET /yt HTTP/1.1\r\nUser-Agent: x'],
    ['a body length', 'GET /yt HTTP/1.1\r\nHost: a\r\nContent-Length: 0'],
    ['a transfer coding', 'GET /yt HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked'],
    ['an upgrade', 'GET /yt HTTP/1.1\r\nHost: a\r\nUpgrade: websocket'],
    ['an expectation', 'GET /yt HTTP/1.1\r\nHost: a\r\nExpect: 100-continue'],
    ['Connection: close', 'GET /yt HTTP/1.1\r\nHost: a\r\nConnection: close'],
    ['a header twice', 'GET /yt HTTP/1.1\r\nHost: a\r\nhost: b'],
    ['a folded line', 'GET /yt HTTP/1.1\r\nHost: a\r\nUser-Agent: x\r\n y'],
    ['a bare LF', 'GET /yt HTTP/1.1\nHost: a'],
    ['a bare CR', 'GET /yt HTTP/1.1\r\nHost: a\rb'],
    ['a control character', 'GET /yt HTTP/1.1\r\nHost: a\r\nUser-Agent: x\x00y'],
    ['a name that is not a token', 'GET /yt HTTP/1.1\r\nHost: a\r\nUser Agent: x'],
    ['a line without a colon', 'GET /yt HTTP/1.1\r\nHost: a\r\nnonsense'],
    ['a space in the target', 'GET /y t HTTP/1.1\r\nHost: a'],
    ['a prototype key', 'GET /yt HTTP/1.1\r\nHost: a\r\n__proto__: x'],
    ['a head over 16 KB', `GET /yt HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(16 * 1024)}`],
  ])('leaves %s to node:http', (_name, head) => {
    expect(readHead(head)).toBeNull();
  });
});

describe('the redirect front on a real server', () => {
  let engine: RunningEngine;
  let port: number;
  beforeAll(async () => {
    engine = await startEngine();
    port = engine.port;
    await fetch(`http://127.0.0.1:${port}/api/links`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ url: YT, slug: 'yt' }),
    });
    // The first visit fills the cache through Fastify; the front answers cached links only.
    await fetch(`http://127.0.0.1:${port}/yt`, { redirect: 'manual' });
  });
  afterAll(async () => engine.close());

  it('answers a visit in one piece: status, headers, Date, keep-alive, an empty body by its length', async () => {
    const [answer] = responsesOf(await exchange(port, [get('/yt') + last('/health')]), ['GET', 'GET']);
    expect(answer?.head.split('\r\n')[0]).toBe('HTTP/1.1 301 Moved Permanently');
    expect(answer?.headers).toMatchObject({
      location: YT,
      vary: 'User-Agent',
      connection: 'keep-alive',
      'keep-alive': `timeout=${Math.floor(engine.app.server.keepAliveTimeout / 1000)}`,
      'content-length': '0',
    });
    expect(Date.parse(answer?.headers.date ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(answer?.headers['transfer-encoding']).toBeUndefined();
  });

  it('hands the connection to node:http at the first request it does not take, and every answer keeps its order', async () => {
    const bytes = await exchange(port, [get('/yt') + get('/yt') + get('/health') + get('/yt') + last('/yt')]);
    const answers = responsesOf(bytes, ['GET', 'GET', 'GET', 'GET', 'GET']);
    expect(answers.map((a) => a.status)).toEqual([301, 301, 200, 301, 301]);
    // The front answered the first two; node:http (chunked framing) everything from /health on.
    expect(answers.map((a) => a.headers['content-length'] ?? a.headers['transfer-encoding'])).toEqual([
      '0',
      '0',
      answers[2]?.headers['content-length'],
      'chunked',
      'chunked',
    ]);
    expect(JSON.parse(answers[2]?.body ?? '')).toEqual({ ok: true });
    expect(answers[4]?.headers.connection).toBe('close');
  });

  it('answers HEAD with the head alone, so the next request on the connection is framed right', async () => {
    const phone = `User-Agent: ${UA.instagramAndroid}\r\n`;
    const bytes = await exchange(port, [
      get('/yt', phone).replace('GET', 'HEAD') + get('/yt', phone) + last('/health'),
    ]);
    const [head, page, health] = responsesOf(bytes, ['HEAD', 'GET', 'GET']);
    expect(head?.status).toBe(200);
    expect(head?.body).toBe('');
    expect(page?.status).toBe(200);
    expect(Number(head?.headers['content-length'])).toBe(Buffer.byteLength(page?.body ?? '', 'latin1'));
    expect(page?.body).toContain('intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;');
    expect(health?.status).toBe(200);
  });

  it.each([
    [
      'a body length on a GET',
      `GET /yt HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      301,
    ],
    [
      'both body lengths (a smuggling attempt)',
      'GET /yt HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['a folded header line', 'GET /yt HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n 2\r\n\r\n', 400],
    ['a control character', 'GET /yt HTTP/1.1\r\nHost: a\r\nX-A: 1\u00012\r\n\r\n', 400],
    ['no Host', 'GET /yt HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
    ['a head over 16 KB', `GET /yt HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`, 431],
    ['HTTP/1.0', 'GET /yt HTTP/1.0\r\nHost: a\r\n\r\n', 301],
  ])('leaves %s to node:http, which answers as it always has', async (_name, request, status) => {
    const answers = responsesOf(await exchange(port, [request]), ['GET']);
    expect(answers.map((a) => a.status)).toEqual([status]);
    expect(answers[0]?.headers['content-length'] === '0' && status === 301).toBe(false);
  });

  it('answers a head that two reads complete; one trickled over three goes to node:http whole', async () => {
    const request = get('/yt');
    const framing = (bytes: Buffer) =>
      responsesOf(bytes, ['GET', 'GET']).map((a) => [a.status, a.headers['content-length'] ?? 'chunked']);
    const twice = await exchange(port, [request.slice(0, 20), request.slice(20) + last('/health')], 50);
    expect(framing(twice)[0]).toEqual([301, '0']);
    const thrice = await exchange(
      port,
      [request.slice(0, 10), request.slice(10, 20), request.slice(20) + last('/health')],
      50,
    );
    expect(framing(thrice)[0]).toEqual([301, 'chunked']);
    expect(framing(thrice)[1]?.[0]).toBe(200);
  });

  it('keeps every answer, in order, for a client that stops reading (the connection is paused, not dropped)', async () => {
    const count = 3_000;
    // Requests of exactly 512 bytes: the server's 64 KB reads then hold whole requests only, so the front
    // keeps the connection (a request split across reads would go to node:http) and meets the full buffer.
    const padded = (extra: string) => {
      const base = get('/yt', `User-Agent: ${UA.instagramAndroid}\r\n${extra}X-Pad: \r\n`);
      return get(
        '/yt',
        `User-Agent: ${UA.instagramAndroid}\r\n${extra}X-Pad: ${'p'.repeat(512 - base.length)}\r\n`,
      );
    };
    expect(padded('').length).toBe(512);
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(padded('').repeat(count - 1) + padded('Connection: close\r\n'));
    // Long enough for the server to fill the socket's buffers and pause on them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
    const answers = responsesOf(Buffer.concat(chunks), []);
    expect(answers).toHaveLength(count);
    const odd = answers.findIndex((a) => !(a.status === 200 && a.body.includes('#Intent;')));
    expect(odd === -1 ? null : [odd, answers[odd]?.head, answers[odd]?.body.slice(0, 300)]).toBeNull();
  });

  it('ends a connection whose client ends it, after its answers', async () => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('connect', () => socket.end(get('/yt')));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(responsesOf(Buffer.concat(chunks), ['GET']).map((a) => a.status)).toEqual([301]);
  });

  it("closes an idle connection after node:http's keep-alive timeout", async () => {
    const before = engine.app.server.keepAliveTimeout;
    engine.app.server.keepAliveTimeout = 200;
    try {
      const bytes = await exchange(port, [get('/yt')]);
      expect(responsesOf(bytes, ['GET']).map((a) => [a.status, a.headers['keep-alive']])).toEqual([
        [301, 'timeout=0'],
      ]);
    } finally {
      engine.app.server.keepAliveTimeout = before;
    }
  });
});

describe('closing a server with connections the front holds', () => {
  it('ends them: close does not wait for their keep-alive timeout', async () => {
    const { port, close } = await startEngine();
    await fetch(`http://127.0.0.1:${port}/api/links`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ url: YT, slug: 'yt' }),
    });
    await exchange(port, [last('/yt')]); // fills the cache through node:http
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('connect', () => socket.write(get('/yt')));
    await expect.poll(() => chunks.length, { timeout: 5_000 }).toBe(1);
    // The front's answer (an empty body by its length): the connection is the front's, idle, and open.
    expect(responsesOf(Buffer.concat(chunks), ['GET'])[0]?.headers['content-length']).toBe('0');
    await close();
    await closed;
    expect(socket.destroyed).toBe(true);
  });
});
