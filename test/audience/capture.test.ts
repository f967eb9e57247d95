import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { audienceDb } from '../../src/audience/repo.js';
import { consentText } from '../../src/audience/service.js';
import type { Store } from '../../src/store/database.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { makeOrg } from '../helpers/org.js';
import { storeKinds } from '../helpers/stores.js';
import { type Receiver, startReceiver } from '../webhooks/setup.js';
import { makeLink, stepClock } from './setup.js';

/**
 * The capture form through the composition root (startHosted) on a stepping clock. The capturing
 * organization is on Legend with a webhook for contact.captured, so every event the capture emits is a row
 * in the real outbox (webhook_deliveries), delivered to a receiver on loopback.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`email capture on ${kind.name}`, () => {
    let h: HostedHarness;
    let store: Store;
    let receiver: Receiver;
    let legend: { orgId: string };

    const post = (payload: unknown, headers: Record<string, string> = {}, remoteAddress = '203.0.113.7') =>
      h.app.inject({
        method: 'POST',
        url: '/api/public/capture',
        remoteAddress,
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    /** The contact.captured events queued, oldest first, as the organization and the data sent. */
    const emitted = async () =>
      (
        await store.db
          .selectFrom('webhook_deliveries')
          .select(['org_id', 'payload'])
          .where('event', '=', 'contact.captured')
          .orderBy('created_at', 'asc')
          .execute()
      ).map((row) => ({ orgId: row.org_id, data: JSON.parse(row.payload) as unknown }));
    const contacts = () =>
      audienceDb(store).selectFrom('contacts').selectAll().orderBy('created_at', 'asc').execute();
    const valid = (over: Record<string, unknown> = {}) => ({
      slug: 'promo',
      email: 'Fan@Example.com',
      consent: true,
      website: '',
      ...over,
    });

    let running: HostedHarness | undefined;
    const stop = async () => {
      const was = running;
      running = undefined;
      await was?.close();
    };
    /** The hosted service on a clock that steps at every reading; FLAGS_OFF as a test asks. */
    const start = async (env: Record<string, string> = {}) => {
      await stop();
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', ...env }, { now: stepClock() });
      running = h;
      store = h.testStore.store;
      const owner = await h.owner('legend', 'Acme Records');
      legend = owner;
      const hook = await h.v1(owner.apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/contacts`, events: ['contact.captured'] },
      });
      if (hook.statusCode !== 201) throw new Error(`webhook not created: ${hook.body}`);
      await makeLink(store, legend.orgId, 'promo');
    };

    beforeEach(async () => {
      receiver = await startReceiver();
      await start();
    });
    afterEach(async () => {
      await stop();
      await receiver.close();
    });

    it('stores a new contact, lowercased, with server-written consent text naming the organization', async () => {
      const response = await post(valid({ consentText: 'I agree to nothing' }), { 'cf-ipcountry': 'fr' });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const rows = await contacts();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        org_id: legend.orgId,
        email: 'fan@example.com',
        source_slug: 'promo',
        country: 'FR',
        consent_text: consentText('Acme Records'),
        unsubscribed_at: null,
      });
      expect(rows[0]?.consent_text).toContain('Acme Records');
      expect(await emitted()).toEqual([
        {
          orgId: legend.orgId,
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
      expect(await emitted()).toHaveLength(1);
    });

    it('stores nothing unless consent is exactly boolean true', async () => {
      for (const consent of [false, 'true', 1, null, undefined]) {
        const response = await post(valid({ consent }));
        expect(response.statusCode).toBe(204);
      }
      expect(await contacts()).toHaveLength(0);
      expect(await emitted()).toHaveLength(0);
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
      await makeLink(store, legend.orgId, 'quiet', { captureEmails: false });
      await makeLink(store, legend.orgId, 'branded', { host: 'go.acme.example' });
      const sidekick = await makeOrg(store, 'sidekick');
      await makeLink(store, sidekick.orgId, 'cheap');
      for (const slug of ['nope', 'quiet', 'branded', 'cheap']) {
        expect((await post(valid({ slug }))).statusCode).toBe(204);
      }
      expect(await contacts()).toHaveLength(0);
      expect(await emitted()).toHaveLength(0);
    });

    it("stores a Hero organization's contact too: Hero is the lowest plan that captures", async () => {
      const hero = await makeOrg(store, 'hero', { name: 'Hero Records' });
      await makeLink(store, hero.orgId, 'heroic');
      expect((await post(valid({ slug: 'heroic' }))).statusCode).toBe(204);
      expect((await contacts()).map((row) => [row.org_id, row.consent_text])).toEqual([
        [hero.orgId, consentText('Hero Records')],
      ]);
    });

    it('still answers 204 and stores nothing when the audienceCapture flag is off', async () => {
      await start({ FLAGS_OFF: 'audienceCapture' });
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
