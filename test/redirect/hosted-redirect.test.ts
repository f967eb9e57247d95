import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { addVerifiedDomain } from '../helpers/domains.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

const now = '2026-11-01T00:00:00.000Z';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`hosted redirect on ${kind.name}`, () => {
    let testStore: TestStore;
    let app: FastifyInstance;
    let composed: Composed;

    beforeAll(async () => {
      testStore = await kind.create();
      const { db } = testStore.store;
      await db
        .insertInto('organizations')
        .values({ id: 'org-1', name: 'Org', tier: 'hero', created_at: now })
        .execute();
      const link = (id: string, host: string, slug: string, destination: string, archived = false) => ({
        id,
        org_id: 'org-1',
        host,
        slug,
        destination,
        platform_key: null,
        archived_at: archived ? now : null,
        created_at: now,
        updated_at: now,
      });
      await db
        .insertInto('links')
        .values([
          link('l1', '', 'yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'),
          link('l2', '', 'old', 'https://example.com/archived', true),
          link('l3', 'links.brand.example', 'yt', 'https://brand.example/custom'),
          link('l4', 'links.brand.example', 'only-custom', 'https://brand.example/only'),
          // No domain row for this hostname (removed by hand, or lost to a race with a delete).
          link('l5', 'legacy.brand.example', 'kept', 'https://brand.example/kept'),
        ])
        .execute();
      await addVerifiedDomain(testStore.store, 'org-1', 'links.brand.example');
      composed = await composeHosted(
        parseConfig({ BASE_URL: 'https://lnk.example' }, 'hosted'),
        testStore.store,
        pino({ level: 'silent' }),
      );
      app = composed.app;
    });
    afterAll(async () => {
      await composed.close();
      await testStore.dispose();
    });

    const visit = (url: string, host: string, userAgent: string = UA.desktopChrome) =>
      app.inject({ method: 'GET', url, headers: { host, 'user-agent': userAgent } });

    it('redirects with 302 and Cache-Control: private, max-age=0', async () => {
      const response = await visit('/yt', 'lnk.example');
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
      expect(response.headers['cache-control']).toBe('private, max-age=0');
      // Private and never reused unasked: a Vary would say nothing more.
      expect(response.headers.vary).toBeUndefined();
    });

    it('serves the escape page to a phone visiting a platform link', async () => {
      const response = await visit('/yt', 'lnk.example', UA.instagramAndroid);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;');
    });

    it('archived links keep redirecting', async () => {
      const response = await visit('/old', 'lnk.example');
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('https://example.com/archived');
    });

    it('a custom hostname resolves its own link for the same slug', async () => {
      const response = await visit('/yt', 'links.brand.example:443');
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('https://brand.example/custom');
    });

    it('a link with a hostname does not answer on the default host', async () => {
      const response = await visit('/only-custom', 'lnk.example');
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    });

    it('a link on a hostname without a verified domain keeps redirecting there (permanence)', async () => {
      const response = await visit('/kept', 'legacy.brand.example');
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('https://brand.example/kept');
    });

    it('any other Host (an IP, a name no organization verified) gets the default host’s links', async () => {
      for (const host of ['127.0.0.1:3000', '[::1]', 'unverified.example', 'LNK.example']) {
        const response = await visit('/yt', host);
        expect(response.headers.location, host).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
        expect((await visit('/only-custom', host)).statusCode, host).toBe(404);
      }
    });

    it('GET /health answers ok', async () => {
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.json()).toEqual({ ok: true });
    });

    it('unknown API paths answer JSON 404s; unknown pages an HTML 404', async () => {
      const api = await app.inject({ method: 'GET', url: '/v1/nothing' });
      expect(api.statusCode).toBe(404);
      expect(api.json().error).toBe('not_found');
      const page = await visit('/nothing/here', 'lnk.example');
      expect(page.statusCode).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    });
  });
}
