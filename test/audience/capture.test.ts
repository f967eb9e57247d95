import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { CAPTURE_RATE_LIMIT, captureRoutes } from '../../src/audience/routes.js';
import { consentText, createAudienceService } from '../../src/audience/service.js';
import { createMemoryRateLimiter } from '../../src/http/rate-limit.js';
import type { Store } from '../../src/store/database.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { audienceStore, buildApp, makeLink, stepClock } from './setup.js';

type Emitted = { orgId: string; data: unknown };

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`email capture on ${kind.name}`, () => {
    let testStore: TestStore;
    let store: Store;
    let app: FastifyInstance;
    let emitted: Emitted[];
    let hero: OrgContext;
    let flagsOff: Set<string>;

    const start = async (limit: number = CAPTURE_RATE_LIMIT.limit) => {
      const audience = createAudienceService({
        store,
        now: stepClock(),
        uuid: randomUUID,
        flagsOff,
        events: {
          emitIn: async (_trx, orgId, _event, data) => {
            emitted.push({ orgId, data: data as Emitted['data'] });
            return 0;
          },
          nudge: () => {},
        },
      });
      const limiter = createMemoryRateLimiter({ limit, windowSeconds: 60 });
      app = await buildApp(new Map(), async (a) => {
        await a.register(captureRoutes, { audience, limiter, geoHeader: 'cf-ipcountry' });
      });
    };
    const post = (payload: unknown, headers: Record<string, string> = {}, remoteAddress = '203.0.113.7') =>
      app.inject({
        method: 'POST',
        url: '/api/public/capture',
        remoteAddress,
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    const contacts = () =>
      audienceDb(store).selectFrom('contacts').selectAll().orderBy('created_at', 'asc').execute();
    const valid = (over: Record<string, unknown> = {}) => ({
      slug: 'promo',
      email: 'Fan@Example.com',
      consent: true,
      website: '',
      ...over,
    });

    beforeEach(async () => {
      testStore = await audienceStore(kind);
      store = testStore.store;
      emitted = [];
      flagsOff = new Set();
      hero = await makeOrg(store, 'hero', { name: 'Acme Records' });
      await makeLink(store, hero.orgId, 'promo');
      await start();
    });
    afterEach(async () => {
      await app.close();
      await testStore.dispose();
    });

    it('stores a new contact, lowercased, with server-written consent text naming the organization', async () => {
      const response = await post(valid({ consentText: 'I agree to nothing' }), { 'cf-ipcountry': 'fr' });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const rows = await contacts();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        org_id: hero.orgId,
        email: 'fan@example.com',
        source_slug: 'promo',
        country: 'FR',
        consent_text: consentText('Acme Records'),
        unsubscribed_at: null,
      });
      expect(rows[0]?.consent_text).toContain('Acme Records');
      expect(emitted).toEqual([
        {
          orgId: hero.orgId,
          data: {
            email: 'fan@example.com',
            sourceSlug: 'promo',
            country: 'FR',
            createdAt: rows[0]?.created_at,
          },
        },
      ]);
    });

    it('treats a repeat email (any case) as a silent no-op that fires nothing', async () => {
      await post(valid());
      const again = await post(valid({ email: 'FAN@example.COM' }));
      expect(again.statusCode).toBe(204);
      expect(await contacts()).toHaveLength(1);
      expect(emitted).toHaveLength(1);
    });

    it('stores nothing unless consent is exactly boolean true', async () => {
      for (const consent of [false, 'true', 1, null, undefined]) {
        const response = await post(valid({ consent }));
        expect(response.statusCode).toBe(204);
      }
      expect(await contacts()).toHaveLength(0);
      expect(emitted).toHaveLength(0);
    });

    it('stores nothing for an email over 254 characters, and accepts one of exactly 254', async () => {
      const at254 = `${'a'.repeat(254 - '@example.com'.length)}@example.com`;
      expect((await post(valid({ email: `b${at254}` }))).statusCode).toBe(204);
      expect(await contacts()).toHaveLength(0);
      await post(valid({ email: at254 }));
      expect(await contacts()).toHaveLength(1);
    });

    it('drops the submission when the honeypot is filled, or the email is not an address', async () => {
      for (const over of [
        { website: 'https://spam.example' },
        { website: ' ' },
        { email: 'nope' },
        { email: 'a b@c.de' },
      ]) {
        expect((await post(valid(over))).statusCode).toBe(204);
      }
      expect(await contacts()).toHaveLength(0);
    });

    it('answers 204 with no body to malformed bodies and stores nothing', async () => {
      const bodies = ['{not json', '[]', 'null', '"text"', ''];
      for (const body of bodies) {
        const response = await post(body);
        expect(response.statusCode).toBe(204);
        expect(response.body).toBe('');
      }
      const odd = await post('x', { 'content-type': 'application/xml' });
      expect(odd.statusCode).toBe(204);
      const huge = await post(valid({ email: `${'a'.repeat(20_000)}@example.com` }));
      expect(huge.statusCode).toBe(204);
      expect(await contacts()).toHaveLength(0);
    });

    it('answers 204 and stores nothing for an unknown slug, capture off, a custom-host link, or a sidekick plan', async () => {
      await makeLink(store, hero.orgId, 'quiet', { captureEmails: false });
      await makeLink(store, hero.orgId, 'branded', { host: 'go.acme.example' });
      const sidekick = await makeOrg(store, 'sidekick');
      await makeLink(store, sidekick.orgId, 'cheap');
      for (const slug of ['nope', 'quiet', 'branded', 'cheap']) {
        expect((await post(valid({ slug }))).statusCode).toBe(204);
      }
      expect(await contacts()).toHaveLength(0);
      expect(emitted).toHaveLength(0);
    });

    it('still answers 204 and stores nothing when the audienceCapture flag is off', async () => {
      flagsOff.add('audienceCapture');
      expect((await post(valid())).statusCode).toBe(204);
      expect(await contacts()).toHaveLength(0);
    });

    it('accepts text/plain holding JSON and the plain form post of the fallback page', async () => {
      await post(JSON.stringify(valid({ email: 'one@example.com' })), { 'content-type': 'text/plain' });
      const form = new URLSearchParams({
        slug: 'promo',
        email: 'two@example.com',
        consent: 'true',
        website: '',
      });
      await post(form.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
      const unticked = new URLSearchParams({ slug: 'promo', email: 'three@example.com', website: '' });
      await post(unticked.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
      expect((await contacts()).map((row) => row.email)).toEqual(['one@example.com', 'two@example.com']);
    });

    it('processes 20 submissions per address per minute, then answers 204 and stores nothing', async () => {
      for (let i = 0; i < 25; i++) {
        expect((await post(valid({ email: `fan${i}@example.com` }))).statusCode).toBe(204);
      }
      expect(await contacts()).toHaveLength(20);
      await post(valid({ email: 'other@example.com' }), {}, '198.51.100.9');
      expect(await contacts()).toHaveLength(21);
    });

    it('keeps the country null when the geo header is absent or not a country code', async () => {
      await post(valid({ email: 'a@example.com' }));
      await post(valid({ email: 'b@example.com' }), { 'cf-ipcountry': 'XXX' });
      expect((await contacts()).map((row) => row.country)).toEqual([null, null]);
    });
  });
}
