import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Per-address limits key on the address TRUST_PROXY yields: unset, the TCP peer, so rotating
 * X-Forwarded-For buys nothing; with a trusted hop, the address that proxy forwarded.
 */

async function protectedLink(h: HostedHarness): Promise<string> {
  const { apiKey } = await h.org('legend');
  const created = await h.v1(apiKey, {
    method: 'POST',
    url: '/v1/links',
    payload: { url: 'https://example.com/secret', password: 'open sesame' },
  });
  return created.json().slug;
}

const guess = (h: HostedHarness, slug: string, password: string, peer: string, forwardedFor?: string) =>
  h.app.inject({
    method: 'POST',
    url: `/${slug}`,
    remoteAddress: peer,
    headers: {
      host: 'lnk.example',
      'content-type': 'application/x-www-form-urlencoded',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    payload: new URLSearchParams({ password }).toString(),
  });

/** One visit over a new connection, closed by the server's idle close; the response head as text. */
function rawVisit(port: string, slug: string, userAgent: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(text.slice(0, text.indexOf('\r\n\r\n') + 2));
      }
    });
    socket.on('error', reject);
    socket.write(`GET /${slug} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: ${userAgent}\r\n\r\n`);
  });
}

describe('TRUST_PROXY unset: the TCP peer is the client', () => {
  let h: HostedHarness;
  let slug: string;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
    slug = await protectedLink(h);
  });
  afterAll(async () => h?.close());

  it('rotating X-Forwarded-For does not escape the password gate’s per-address limit', async () => {
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await guess(h, slug, 'wrong', '192.0.2.50', `198.51.100.${i + 1}`)).statusCode);
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('TRUST_PROXY=1: one reverse proxy in front', () => {
  let h: HostedHarness;
  let slug: string;
  beforeAll(async () => {
    h = await startHosted(sqliteKind, { TRUST_PROXY: '1' });
    slug = await protectedLink(h);
  });
  afterAll(async () => h?.close());

  it('keys the per-address limit on the forwarded address', async () => {
    for (let i = 0; i < 10; i++) await guess(h, slug, 'wrong', '10.0.0.2', '198.51.100.9');
    expect((await guess(h, slug, 'wrong', '10.0.0.2', '198.51.100.9')).statusCode).toBe(429);
    // Another visitor behind the same proxy is not punished for the first one's guesses.
    expect((await guess(h, slug, 'open sesame', '10.0.0.2', '198.51.100.10')).statusCode).toBe(303);
  });

  it('caps wrong passwords per link whatever the addresses: 50 in 5 minutes', async () => {
    const other = await protectedLink(h);
    const statuses = [];
    for (let i = 0; i < 51; i++) {
      statuses.push((await guess(h, other, 'wrong', '10.0.0.2', `203.0.113.${i + 1}`)).statusCode);
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(50);
    expect(statuses[50]).toBe(429);
    // Even the right password waits: the link is under attack, and its limit is not per address.
    const right = await guess(h, other, 'open sesame', '10.0.0.2', '203.0.113.200');
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    // 51 scrypt verifications: slow on a loaded CI machine.
  }, 120_000);
});

describe('TRUST_PROXY values', () => {
  const parse = (value: string) => parseConfig({ TRUST_PROXY: value }, 'hosted').trustProxy;

  it('takes a hop count or a list of addresses and CIDRs, and refuses anything else at start', () => {
    expect(parseConfig({}, 'hosted').trustProxy).toBe(false);
    expect(parse('2')).toBe(2);
    expect(parse('10.0.0.0/8, ::1, loopback')).toEqual(['10.0.0.0/8', '::1', 'loopback']);
    for (const bad of ['true', 'everyone', '10.0.0.0/33', '10.0.0.1/8/1', 'example.com']) {
      expect(() => parse(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

describe('https deployments', () => {
  let h: HostedHarness;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
  });
  afterAll(async () => h?.close());

  it('send HSTS on API responses and redirects (BASE_URL is https here)', async () => {
    const { apiKey } = await h.org('legend');
    const me = await h.v1(apiKey, { method: 'GET', url: '/v1/me' });
    expect(me.headers['strict-transport-security']).toBe('max-age=31536000');
    const link = (
      await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com' } })
    ).json();
    const visit = await h.app.inject({
      method: 'GET',
      url: `/${link.slug}`,
      headers: { host: 'lnk.example' },
    });
    expect(visit.statusCode).toBe(302);
    expect(visit.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('send HSTS on the fast path too: cached redirects and escape pages over real HTTP', async () => {
    const { apiKey } = await h.org('legend');
    const create = async (url: string) =>
      (await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url } })).json().slug as string;
    const plain = await create('https://example.com/fast');
    const video = await create('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    const origin = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const get = (slug: string, userAgent: string) =>
      fetch(`${origin}/${slug}`, { redirect: 'manual', headers: { 'user-agent': userAgent } });
    // The second visit of each is answered by the fast path, from the cache the first one filled.
    for (const [slug, userAgent, status] of [
      [plain, UA.desktopChrome, 302],
      [video, UA.instagramIos, 200],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const response = await get(slug, userAgent);
        expect(response.status).toBe(status);
        expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
      }
      // A fresh connection: read and answered by the redirect front (fetch's pooled one went to node:http
      // at the first visit, a cache miss), which must add the header as well.
      const raw = await rawVisit(new URL(origin).port, slug, userAgent);
      expect(raw).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(raw).toContain('\r\nstrict-transport-security: max-age=31536000\r\n');
    }
  });

  it('serve /docs under a Content-Security-Policy', async () => {
    const docs = await h.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    const csp = String(docs.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(docs.body).toContain('swagger-initializer.js');
  });
});
