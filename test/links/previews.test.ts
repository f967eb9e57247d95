import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind, storeKinds } from '../helpers/stores.js';

/** A destination on loopback whose Open Graph tags the test can change. */
function destination() {
  let title = 'First title';
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits++;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<html><head><meta property="og:title" content="${title}"><meta property="og:description" content="About &amp; more">` +
        '<meta property="og:image" content="/cover.png"></head><body></body></html>',
    );
  });
  return {
    server,
    setTitle: (next: string) => {
      title = next;
    },
    hits: () => hits,
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`link previews on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    const site = destination();
    let origin: string;
    beforeAll(async () => {
      origin = await site.start();
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      key = (await h.org('legend')).apiKey;
    });
    afterAll(async () => {
      await h?.close();
      site.server.close();
    });

    const og = (id: string, method: 'GET' | 'PUT' | 'DELETE' = 'GET', payload?: object) =>
      h.v1(key, { method, url: `/v1/links/${id}/og`, ...(payload ? { payload } : {}) });

    it('scrapes on first read, then override, clear the override, and re-scrape', async () => {
      const link = (
        await h.v1(key, { method: 'POST', url: '/v1/links', payload: { url: `${origin}/page` } })
      ).json();
      const first = await og(link.id);
      expect(first.statusCode).toBe(200);
      const scraped = { title: 'First title', description: 'About & more', image: `${origin}/cover.png` };
      expect(first.json()).toEqual({ ...scraped, source: 'scraped', scraped, updatedAt: expect.any(String) });

      const custom = await og(link.id, 'PUT', {
        title: 'My title',
        description: null,
        image: 'https://cdn.example/i.png',
      });
      expect(custom.json()).toEqual({
        title: 'My title',
        description: null,
        image: 'https://cdn.example/i.png',
        source: 'custom',
        scraped,
        updatedAt: expect.any(String),
      });

      site.setTitle('Second title');
      const rescraped = await h.v1(key, { method: 'POST', url: `/v1/links/${link.id}/og/scrape` });
      expect(rescraped.json().source).toBe('custom');
      expect(rescraped.json().title).toBe('My title');
      expect(rescraped.json().scraped.title).toBe('Second title');

      const cleared = await og(link.id, 'DELETE');
      expect(cleared.json()).toMatchObject({ title: 'Second title', source: 'scraped' });
    });

    it('refuses a custom image that is not an http(s) URL', async () => {
      const link = (
        await h.v1(key, { method: 'POST', url: '/v1/links', payload: { url: `${origin}/x` } })
      ).json();
      const response = await og(link.id, 'PUT', { image: 'javascript:alert(1)' });
      expect(response.statusCode).toBe(400);
    });

    it('another organization gets 404', async () => {
      const link = (
        await h.v1(key, { method: 'POST', url: '/v1/links', payload: { url: `${origin}/y` } })
      ).json();
      const other = await h.org('legend');
      expect((await h.v1(other.apiKey, { method: 'GET', url: `/v1/links/${link.id}/og` })).statusCode).toBe(
        404,
      );
    });
  });
}

describe('link previews never fetch private addresses without WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  const site = destination();
  let h: HostedHarness;
  let origin: string;
  beforeAll(async () => {
    origin = await site.start();
    h = await startHosted(sqliteKind);
  });
  afterAll(async () => {
    await h?.close();
    site.server.close();
  });

  it('a loopback destination is not fetched: the preview stays empty', async () => {
    const { apiKey } = await h.org('legend');
    const link = (
      await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: `${origin}/page` } })
    ).json();
    const response = await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/og` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ title: null, description: null, image: null, scraped: null });
    expect(site.hits()).toBe(0);
  });
});
