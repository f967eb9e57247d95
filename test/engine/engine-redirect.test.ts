import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeEngine } from '../../src/compose/engine.js';
import { parseEngineConfig } from '../../src/engine/config.js';
import type { EngineStore } from '../../src/engine/store.js';
import { engineStoreOn, type ServedEngine, serveEngine } from '../helpers/engine.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

const TOKEN = 'redirect-test-token';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`engine public redirect on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: EngineStore;
    let app: ServedEngine;

    beforeAll(async () => {
      testStore = await kind.create();
      store = engineStoreOn(testStore);
      app = await serveEngine(
        await composeEngine(
          parseEngineConfig({ API_TOKEN: TOKEN, BASE_URL: 'https://go.example.com' }),
          store,
          pino({ level: 'silent' }),
        ),
      );
      const links = {
        yt: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        plain: 'https://example.org/landing?x=1',
        about: 'https://www.youtube.com/about',
        spot: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC',
        idn: 'https://bücher.example/straße?q=ä',
      };
      for (const [slug, url] of Object.entries(links)) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/links',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          payload: { url, slug },
        });
        expect(response.statusCode).toBe(201);
      }
    });
    afterAll(async () => {
      await app.close();
      await store.close();
      await testStore.dispose();
    });

    const visit = (slug: string, userAgent?: string, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'GET',
        url: `/${slug}`,
        headers: { ...(userAgent === undefined ? {} : { 'user-agent': userAgent }), ...headers },
      });

    it('an unknown slug is a 404 HTML page', async () => {
      const response = await visit('missing', UA.desktopChrome);
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain('<html');
    });

    it('a path that cannot be a slug is a 404 HTML page too', async () => {
      for (const path of ['/a.b', '/x/y/z', `/${'a'.repeat(33)}`]) {
        const response = await app.inject({ method: 'GET', url: path });
        expect(response.statusCode).toBe(404);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
      }
    });

    it('a desktop visitor of a platform link gets a 301 to the destination', async () => {
      const response = await visit('yt', UA.desktopChrome);
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    });

    it('a phone visiting a destination no platform owns gets a 301', async () => {
      const response = await visit('plain', UA.instagramIos);
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe('https://example.org/landing?x=1');
    });

    it('a phone visiting a platform path its app cannot open gets a 301', async () => {
      const response = await visit('about', UA.instagramAndroid);
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe('https://www.youtube.com/about');
    });

    it('a visitor with no user agent gets a 301', async () => {
      const response = await visit('yt');
      expect(response.statusCode).toBe(301);
    });

    it('a non-ASCII destination is sent as a valid, encoded Location', async () => {
      const response = await visit('idn', UA.desktopChrome);
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe(new URL('https://bücher.example/straße?q=ä').href);
      expect(String(response.headers.location)).toMatch(/^[\x21-\x7e]+$/);
    });

    it.each([
      ['Android in Instagram', UA.instagramAndroid, 'intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;'],
      ['Android Chrome', UA.androidChrome, 'package=com.google.android.youtube'],
      ['iOS in Instagram', UA.instagramIos, 'youtube://'],
      ['iOS Safari', UA.iphoneSafari, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    ])(
      'a phone (%s) visiting a platform link gets the 200 escape page',
      async (_name, userAgent, expected) => {
        const response = await visit('yt', userAgent);
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.body).toContain(expected);
        const csp = String(response.headers['content-security-policy']);
        const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
        expect(nonce).toBeTruthy();
        expect(csp).toContain("default-src 'none'");
        expect(response.body).toContain(`nonce="${nonce}"`);
        expect(Buffer.byteLength(response.body)).toBeLessThan(10 * 1024);
      },
    );

    it('each escape page gets a fresh nonce', async () => {
      const first = await visit('spot', UA.instagramAndroid);
      const second = await visit('spot', UA.instagramAndroid);
      expect(first.headers['content-security-policy']).not.toBe(second.headers['content-security-policy']);
    });

    it.each([
      ['Facebook preview', UA.facebookPreview],
      ['Googlebot smartphone', UA.googlebotSmartphone],
      ['WhatsApp preview fetcher', 'WhatsApp/2.23.20.0 A'],
      ['Twitterbot', 'Twitterbot/1.0'],
      ['Slack unfurler', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'],
    ])(
      'a link-preview bot (%s) never gets the escape page: it gets the redirect',
      async (_name, userAgent) => {
        const response = await visit('yt', userAgent);
        expect(response.statusCode).toBe(301);
        expect(response.headers.location).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
      },
    );

    it('a prefetch from a phone gets the redirect, not the page', async () => {
      const response = await visit('yt', UA.instagramIos, { 'sec-purpose': 'prefetch' });
      expect(response.statusCode).toBe(301);
    });

    it('a HEAD request is answered like the GET', async () => {
      const response = await app.inject({
        method: 'HEAD',
        url: '/yt',
        headers: { 'user-agent': UA.desktopChrome },
      });
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    });

    it('GET /health answers ok when the store answers', async () => {
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ok: true });
    });
  });
}
