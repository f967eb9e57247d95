import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEngine, startEngine } from '../helpers/engine.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

const WECHAT_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 10_2_1 like Mac OS X) AppleWebKit/602.4.6 (KHTML, like Gecko) Mobile/14D27 MicroMessenger/6.5.8 NetType/WIFI Language/zh_CN';

/**
 * The raw fast path only runs on a real server (app.inject bypasses it), so these visits go over real
 * HTTP: the first fills the cache through Fastify, the next ones are answered by the fast path, and
 * both must say exactly the same thing.
 */
const visit = (origin: string, path: string, init: RequestInit = {}) =>
  fetch(`${origin}${path}`, {
    redirect: 'manual',
    ...init,
    headers: { 'user-agent': UA.desktopChrome, ...(init.headers ?? {}) },
  });

describe('engine fast path', () => {
  let engine: RunningEngine;
  let origin: string;
  beforeAll(async () => {
    engine = await startEngine();
    origin = engine.origin;
    for (const [slug, url] of [
      ['yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      ['health', 'https://example.com/health-link'],
    ]) {
      await fetch(`${origin}/api/links`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ url, slug }),
      });
    }
  });
  afterAll(async () => engine.close());

  it('answers cached visits exactly as the routed visit did', async () => {
    const first = await visit(origin, '/yt');
    const second = await visit(origin, '/yt?utm=x');
    for (const response of [first, second]) {
      expect(response.status).toBe(301);
      expect(response.headers.get('location')).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
      expect(response.headers.get('vary')).toBe('User-Agent');
    }
    const page = await visit(origin, '/yt', { headers: { 'user-agent': UA.instagramAndroid } });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;');
    expect(page.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    const nonce = /'nonce-([^']+)'/.exec(String(page.headers.get('content-security-policy')))?.[1];
    expect(body).toContain(`nonce="${nonce}"`);
    const head = await visit(origin, '/yt', {
      method: 'HEAD',
      headers: { 'user-agent': UA.instagramAndroid },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it("keeps a page's UTF-8 text byte for byte, routed and on the fast path (pages are byte strings)", async () => {
    // WeChat on iOS gets the menu instructions: "tap ⋯ ... “Open in browser”", characters beyond latin1.
    const pages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await visit(origin, '/yt', { headers: { 'user-agent': WECHAT_IOS } });
      expect(page.status).toBe(200);
      const bytes = Buffer.from(await page.arrayBuffer());
      expect(page.headers.get('content-length')).toBe(String(bytes.length));
      const text = bytes.toString('utf8');
      expect(text).toContain('tap ⋯ at the top right, then “Open in browser”');
      expect(Buffer.from(text, 'utf8').equals(bytes)).toBe(true);
      pages.push(text.replace(/nonce="[^"]+"/g, ''));
    }
    expect(new Set(pages).size).toBe(1);
  });

  it('never shadows /health, even with a link whose slug is health', async () => {
    const response = await fetch(`${origin}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});

describe('hosted fast path', () => {
  let h: HostedHarness;
  let origin: string;
  let key: string;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    key = (await h.org('legend')).apiKey;
  });
  afterAll(async () => h?.close());

  const create = async (payload: object): Promise<{ id: string; slug: string }> => {
    const response = await fetch(`${origin}/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    return (await response.json()) as { id: string; slug: string };
  };

  it('a password-protected link is never served past its gate, however warm the cache', async () => {
    const link = await create({ url: 'https://example.com/private', password: 'letmein1' });
    for (let i = 0; i < 3; i++) {
      const response = await visit(origin, `/${link.slug}`);
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(body).toContain('<form method="post"');
      expect(body).not.toContain('example.com/private');
    }
  });

  it('routes and composes UTM on the fast path as on the slow one', async () => {
    const link = await create({
      url: 'https://example.com/d',
      utm: { source: 'fast' },
      routing: { ios: 'https://ios.example/' },
    });
    for (let i = 0; i < 3; i++) {
      expect((await visit(origin, `/${link.slug}`)).headers.get('location')).toBe(
        'https://example.com/d?utm_source=fast',
      );
      const ios = await visit(origin, `/${link.slug}`, { headers: { 'user-agent': UA.iphoneSafari } });
      expect(ios.headers.get('location')).toBe('https://ios.example/?utm_source=fast');
      expect(ios.headers.get('cache-control')).toBe('private, max-age=0');
      expect(ios.headers.get('vary')).toBeNull();
    }
  });

  it('an edit invalidates what the fast path serves', async () => {
    const link = await create({ url: 'https://example.com/one' });
    await visit(origin, `/${link.slug}`);
    expect((await visit(origin, `/${link.slug}`)).headers.get('location')).toBe('https://example.com/one');
    await fetch(`${origin}/v1/links/${link.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/two' }),
    });
    expect((await visit(origin, `/${link.slug}`)).headers.get('location')).toBe('https://example.com/two');
  });
});
