import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LruCache } from '../../src/core/lru-cache.js';
import { buildEngineApp, type EngineApp } from '../../src/engine/app.js';
import { EngineError } from '../../src/engine/errors.js';
import type { EngineLinkService } from '../../src/engine/service.js';
import { type RunningEngine, startEngine } from '../helpers/engine.js';
import { UA } from '../helpers/user-agents.js';

/**
 * The engine's HTTP behaviour beside its routes, as its Fastify app answered it and node:http now does:
 * the 64 KB body limit, any content type, the 404s, trailing slashes, HEAD, the error handler, the
 * request log line and shutdown.
 */

const auth = { authorization: 'Bearer t' };

/** One raw request on its own connection: what a client sees, Connection header included. */
function send(
  port: number,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer[] },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        headers: options.headers,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // The server may answer (413) and close before a large body is all sent.
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' ? undefined : reject(error),
    );
    if (Array.isArray(options.body)) for (const chunk of options.body) outgoing.write(chunk);
    else if (options.body !== undefined) outgoing.write(options.body);
    outgoing.end();
  });
}

describe('engine HTTP', () => {
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startEngine();
    const made = await engine.inject({
      method: 'POST',
      url: '/api/links',
      headers: auth,
      payload: { url: 'https://example.org/landing', slug: 'land' },
    });
    expect(made.statusCode).toBe(201);
  });
  afterAll(async () => engine.close());

  it('413 Payload too large for a body over 64 KB, declared or chunked, and the connection closes', async () => {
    const big = JSON.stringify({ url: 'https://example.org/x', pad: 'x'.repeat(70 * 1024) });
    const declared = await send(engine.port, {
      method: 'POST',
      path: '/api/links',
      headers: { ...auth, 'content-type': 'application/json', 'content-length': String(big.length) },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toEqual({ error: 'Payload too large' });
    expect(declared.headers.connection).toBe('close');
    const chunks = Array.from({ length: 5 }, () => Buffer.from('x'.repeat(16 * 1024)));
    const chunked = await send(engine.port, {
      method: 'POST',
      path: '/api/links',
      headers: auth,
      body: chunks,
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual({ error: 'Payload too large' });
  });

  it('a body of exactly 64 KB is read', async () => {
    const prefix = '{"url":"https://example.org/exact","slug":"exact","pad":"';
    const body = `${prefix}${'x'.repeat(64 * 1024 - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(body)).toBe(64 * 1024);
    const response = await send(engine.port, { method: 'POST', path: '/api/links', headers: auth, body });
    expect(response.status).toBe(201);
  });

  it('any content type is read as JSON, even a malformed one', async () => {
    for (const [slug, type] of [
      ['ct-text', 'text/plain'],
      ['ct-form', 'application/x-www-form-urlencoded'],
      ['ct-junk', 'garbage'],
    ] as const) {
      const response = await engine.inject({
        method: 'POST',
        url: '/api/links',
        headers: { ...auth, 'content-type': type },
        payload: JSON.stringify({ url: 'https://example.org/ct', slug }),
      });
      expect(response.statusCode, type).toBe(201);
    }
  });

  it('a body that is not JSON is 400 Invalid JSON body and closes the connection', async () => {
    for (const body of ['{"url": ', 'url=https://example.org', '\ufeff{"url":"https://example.org"}']) {
      const response = await send(engine.port, { method: 'POST', path: '/api/links', headers: auth, body });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ error: 'Invalid JSON body' });
      expect(response.headers.connection).toBe('close');
    }
  });

  it('a trailing slash is the same route', async () => {
    const read = await engine.inject({ url: '/api/links/land/', headers: auth });
    expect(read.statusCode).toBe(200);
    expect(read.json().slug).toBe('land');
    expect((await engine.inject({ url: '/api/links/', headers: auth })).statusCode).toBe(405);
    expect((await engine.inject({ url: '/health/' })).json()).toEqual({ ok: true });
    const visit = await engine.inject({ url: '/land/', headers: { 'user-agent': UA.desktopChrome } });
    expect(visit.statusCode).toBe(301);
    expect(visit.headers.location).toBe('https://example.org/landing');
    expect(visit.headers['content-length']).toBe('0');
  });

  it('a percent-encoded slug is the slug; one that cannot be decoded names nothing', async () => {
    expect((await engine.inject({ url: '/api/links/l%61nd', headers: auth })).statusCode).toBe(200);
    const bad = await engine.inject({ url: '/api/links/%E0', headers: auth });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ error: 'Not found' });
    expect((await engine.inject({ url: '/%E0' })).statusCode).toBe(404);
  });

  it('an unknown path under /api/ is JSON 404 Not found; elsewhere the 404 page', async () => {
    for (const url of ['/api/other', '/api/links/land/more']) {
      const response = await engine.inject({ url, headers: auth });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'Not found' });
    }
    for (const url of ['/', '/a/b', '//land', '/api', '/nothing-here']) {
      const response = await engine.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('a method no route has is a 404, not a 405 (PROPFIND), and POST /health is the 404 page', async () => {
    const propfind = await engine.inject({ method: 'PROPFIND', url: '/api/links', headers: auth });
    expect(propfind.statusCode).toBe(404);
    expect(propfind.json()).toEqual({ error: 'Not found' });
    expect((await engine.inject({ method: 'POST', url: '/health' })).headers['content-type']).toMatch(
      /^text\/html/,
    );
  });

  it('a body sent to an unknown path is still read: not JSON is 400, too large is 413', async () => {
    const bad = await engine.inject({ method: 'POST', url: '/nowhere', payload: '{bad' });
    expect(bad.statusCode).toBe(400);
    const big = await send(engine.port, { method: 'POST', path: '/nowhere', body: 'x'.repeat(70 * 1024) });
    expect(big.status).toBe(413);
    expect((await engine.inject({ method: 'POST', url: '/nowhere', payload: {} })).statusCode).toBe(404);
  });

  it('HEAD /health answers the headers of GET, without a body', async () => {
    const response = await engine.inject({ method: 'HEAD', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-length']).toBe('11');
    expect(response.body).toBe('');
  });

  it('an absolute-form request target is routed by its path', async () => {
    const response = await send(engine.port, {
      method: 'GET',
      path: `http://127.0.0.1:${engine.port}/api/links/land`,
      headers: auth,
    });
    expect(response.status).toBe(200);
  });
});

describe('engine error handler, request log and shutdown', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  let failure: Error = new Error('boom');
  let app: EngineApp;
  let port: number;

  beforeAll(async () => {
    const links: EngineLinkService = {
      create: async () => {
        throw failure;
      },
      get: async () => {
        throw failure;
      },
    };
    app = buildEngineApp({
      logger,
      links,
      authorize: () => true,
      respondToVisit: (() => {
        throw new Error('not used');
      }) as never,
      cache: new LruCache(10),
      loadCompiled: async () => {
        throw failure;
      },
      ping: async () => {
        throw failure;
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => app.close());

  it('an unexpected error is 500 Internal error, logged with the request id', async () => {
    failure = new Error('boom');
    lines.length = 0;
    const response = await send(port, { method: 'GET', path: '/api/links/abc' });
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ error: 'Internal error' });
    const logged = lines.find((line) => line.msg === 'engine request failed');
    expect(logged).toMatchObject({ level: 50, err: { message: 'boom' } });
    expect(logged?.reqId).toMatch(/^req-[0-9a-z]+$/);
  });

  it('an EngineError answers its own status and text', async () => {
    failure = new EngineError('slug_taken');
    const response = await send(port, {
      method: 'POST',
      path: '/api/links',
      body: '{"url":"https://example.org","slug":"x"}',
    });
    expect(response.status).toBe(409);
    expect(JSON.parse(response.body)).toEqual({ error: 'Slug already taken' });
  });

  it('a store that cannot be reached is 503 Service unavailable with Retry-After, and a 503 page for a visit', async () => {
    failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const api = await send(port, { method: 'GET', path: '/api/links/abc' });
    expect(api.status).toBe(503);
    expect(api.headers['retry-after']).toBe('5');
    expect(JSON.parse(api.body)).toEqual({ error: 'Service unavailable' });
    const visit = await send(port, { method: 'GET', path: '/abc/' });
    expect(visit.status).toBe(503);
    expect(visit.headers['retry-after']).toBe('5');
    expect(visit.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await send(port, { method: 'GET', path: '/health' })).status).toBe(503);
  });

  it('writes one line per request: method, url, status, time, request id', async () => {
    await send(port, { method: 'GET', path: '/no/where?x=1' });
    // Written when the answer is finished on the server's side, which may come just after the client has it.
    const line = await vi.waitFor(() => {
      const found = lines.find((entry) => 'responseTime' in entry && entry.url === '/no/where?x=1');
      if (!found) throw new Error('no request line yet');
      return found;
    });
    expect(line).toMatchObject({ level: 30, method: 'GET', url: '/no/where?x=1', statusCode: 404 });
    expect(line?.msg).toBe(`GET /no/where?x=1 404 ${line?.responseTime} ms`);
    expect(line?.reqId).toMatch(/^req-[0-9a-z]+$/);
  });

  it('at warn and above, requests write no line', async () => {
    const quiet: unknown[] = [];
    const quietApp = buildEngineApp({
      logger: pino({ level: 'warn' }, { write: (line: string) => void quiet.push(line) }),
      links: {} as never,
      authorize: () => false,
      respondToVisit: (() => null) as never,
      cache: new LruCache(1),
      loadCompiled: async () => undefined,
      ping: async () => undefined,
    });
    await quietApp.listen({ port: 0, host: '127.0.0.1' });
    await send((quietApp.server.address() as AddressInfo).port, { method: 'GET', path: '/health' });
    await quietApp.close();
    expect(quiet).toEqual([]);
  });

  it('close waits for the request in flight, then stops listening', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const pinged = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const slowApp = buildEngineApp({
      logger: pino({ level: 'silent' }),
      links: {} as never,
      authorize: () => false,
      respondToVisit: (() => null) as never,
      cache: new LruCache(1),
      loadCompiled: async () => undefined,
      ping: () =>
        new Promise<void>((resolve) => {
          release = resolve;
          arrived();
        }),
    });
    await slowApp.listen({ port: 0, host: '127.0.0.1' });
    const slowPort = (slowApp.server.address() as AddressInfo).port;
    const inFlight = send(slowPort, { method: 'GET', path: '/health' });
    await pinged;
    const closed = slowApp.close();
    release();
    expect((await inFlight).status).toBe(200);
    await closed;
    expect(slowApp.server.listening).toBe(false);
  });
});
