import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';
import { type Receiver, startReceiver } from '../webhooks/setup.js';

type Reply = Awaited<ReturnType<FastifyInstance['inject']>>;

const YOUTUBE = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const OVER = 'https://example.com/campaign-over';
const PAST = '2020-01-01T00:00:00Z';
const FUTURE = '2099-01-01T00:00:00Z';

/**
 * Campaign end dates and click limits (issue #20) through HTTP: an expired link is re-pointed, never broken,
 * for people, bots and previews alike; human clicks are counted exactly; an edit un-expires; link.expired
 * fires once.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`link expiry on ${kind.name}`, () => {
    let h: HostedHarness;
    let receiver: Receiver;
    let apiKey: string;

    beforeAll(async () => {
      receiver = await startReceiver();
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      apiKey = (await h.org('legend')).apiKey;
      const hook = await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/webhooks',
        payload: { url: `${receiver.url}/expired`, events: ['link.expired'] },
      });
      expect(hook.statusCode).toBe(201);
    });
    afterAll(async () => {
      await h?.close();
      await receiver?.close();
    });

    const create = async (payload: object) => {
      const response = await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: YOUTUBE, ...payload },
      });
      expect(response.statusCode).toBe(201);
      return response.json() as { id: string; slug: string; expired: boolean };
    };
    const patch = (id: string, payload: object) =>
      h.v1(apiKey, { method: 'PATCH', url: `/v1/links/${id}`, payload });
    const get = async (id: string) => (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${id}` })).json();
    const visit = (slug: string, userAgent: string = UA.desktopChrome): Promise<Reply> =>
      h.app.inject({
        method: 'GET',
        url: `/${slug}`,
        headers: { host: 'lnk.example', 'user-agent': userAgent },
      });
    const expiredEventsFor = (id: string) =>
      receiver.receipts.filter(
        (r) => r.path === '/expired' && JSON.parse(r.raw.toString('utf8')).data.id === id,
      ).length;
    async function eventually(check: () => boolean): Promise<boolean> {
      for (let i = 0; i < 100; i++) {
        if (check()) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return check();
    }

    it('every link answers the four fields, null and false by default', async () => {
      const link = await create({});
      expect(link).toMatchObject({ expiresAt: null, expiredUrl: null, maxClicks: null, expired: false });
    });

    it('expiredUrl is required whenever expiresAt or maxClicks is set, on create and on PATCH', async () => {
      for (const payload of [{ expiresAt: FUTURE }, { maxClicks: 5 }]) {
        const response = await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: YOUTUBE, ...payload },
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_body', issues: [{ path: ['expiredUrl'] }] });
        expect(response.json().message).toMatch(/^expiredUrl is required/);
      }
      const link = await create({});
      const edit = await patch(link.id, { maxClicks: 3 });
      expect(edit.statusCode).toBe(400);
      expect(edit.json().message).toMatch(/expiredUrl is required when maxClicks is set/);
      // Clearing expiredUrl while a limit stays is refused the same way.
      const limited = await create({ maxClicks: 3, expiredUrl: OVER });
      expect((await patch(limited.id, { expiredUrl: null })).statusCode).toBe(400);
    });

    it('bad values are 400s that name the field', async () => {
      const cases: [object, RegExp][] = [
        [{ maxClicks: 0, expiredUrl: OVER }, /^maxClicks must be a whole number of at least 1/],
        [{ maxClicks: 2.5, expiredUrl: OVER }, /^maxClicks must be a whole number/],
        [{ expiresAt: 'next tuesday', expiredUrl: OVER }, /^expiresAt must be an ISO 8601 date-time/],
        [
          { expiresAt: FUTURE, expiredUrl: 'ftp://example.com/x' },
          /^expiredUrl must be a valid http\(s\) URL/,
        ],
      ];
      for (const [payload, message] of cases) {
        const response = await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: YOUTUBE, ...payload },
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().message).toMatch(message);
      }
    });

    it('past its end date a link sends people, phones in apps, bots and previews to expiredUrl (302, no escape page)', async () => {
      const link = await create({ expiresAt: FUTURE, expiredUrl: OVER });
      // Before: an Instagram visit to a YouTube link gets the escape page.
      expect((await visit(link.slug, UA.instagramIos)).statusCode).toBe(200);
      expect((await patch(link.id, { expiresAt: PAST })).statusCode).toBe(200);
      for (const ua of [
        UA.desktopChrome,
        UA.instagramIos,
        UA.instagramAndroid,
        UA.googlebotSmartphone,
        UA.facebookPreview,
      ]) {
        const reply = await visit(link.slug, ua);
        expect(reply.statusCode).toBe(302);
        expect(reply.headers.location).toBe(OVER);
      }
      expect((await get(link.id)).expired).toBe(true);
      // The normalised end date is what is stored and answered.
      expect((await get(link.id)).expiresAt).toBe('2020-01-01T00:00:00.000Z');
    });

    it('a later expiresAt, or nulls, un-expire the link', async () => {
      const link = await create({ expiresAt: PAST, expiredUrl: OVER });
      expect((await visit(link.slug)).headers.location).toBe(OVER);
      const later = await patch(link.id, { expiresAt: FUTURE });
      expect(later.json().expired).toBe(false);
      expect((await visit(link.slug)).headers.location).toBe(YOUTUBE);
      await patch(link.id, { expiresAt: PAST });
      expect((await visit(link.slug)).headers.location).toBe(OVER);
      const cleared = await patch(link.id, { expiresAt: null, expiredUrl: null });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json()).toMatchObject({ expiresAt: null, expiredUrl: null, expired: false });
      expect((await visit(link.slug)).headers.location).toBe(YOUTUBE);
    });

    it('maxClicks counts human clicks only; the click after the limit goes to expiredUrl', async () => {
      const link = await create({ url: 'https://example.com/offer', maxClicks: 3, expiredUrl: OVER });
      const destinations: string[] = [];
      for (let i = 0; i < 3; i++) {
        destinations.push(String((await visit(link.slug)).headers.location));
        // Bots and previews in between are served and never counted (until the third person reaches the limit).
        if (i === 2) break;
        for (const ua of [UA.googlebotSmartphone, UA.facebookPreview]) {
          expect((await visit(link.slug, ua)).headers.location).toBe('https://example.com/offer');
        }
      }
      expect(destinations).toEqual(Array(3).fill('https://example.com/offer'));
      expect((await get(link.id)).expired).toBe(true);
      for (const ua of [UA.desktopChrome, UA.googlebotSmartphone, UA.facebookPreview]) {
        expect((await visit(link.slug, ua)).headers.location).toBe(OVER);
      }
    });

    it('link.expired fires once, at the click that reaches the limit', async () => {
      const link = await create({ url: 'https://example.com/drop', maxClicks: 2, expiredUrl: OVER });
      await visit(link.slug);
      await h.sweepExpiry();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(expiredEventsFor(link.id)).toBe(0);
      await visit(link.slug);
      expect(await eventually(() => expiredEventsFor(link.id) === 1)).toBe(true);
      for (let i = 0; i < 3; i++) await visit(link.slug);
      await h.sweepExpiry();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(expiredEventsFor(link.id)).toBe(1);
      const data = JSON.parse(
        receiver.receipts
          .find((r) => JSON.parse(r.raw.toString('utf8')).data.id === link.id)
          ?.raw.toString('utf8') ?? '{}',
      ).data;
      expect(data).toMatchObject({ id: link.id, maxClicks: 2, expired: true, expiredUrl: OVER });
    });

    it('a higher maxClicks un-expires the link and counting goes on from where it was', async () => {
      const link = await create({ url: 'https://example.com/more', maxClicks: 1, expiredUrl: OVER });
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/more');
      expect((await visit(link.slug)).headers.location).toBe(OVER);
      const raised = await patch(link.id, { maxClicks: 2 });
      expect(raised.json().expired).toBe(false);
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/more');
      expect((await visit(link.slug)).headers.location).toBe(OVER);
      // Clearing the limit un-expires and forgets the count: a new limit starts from zero.
      await patch(link.id, { maxClicks: null });
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/more');
      await patch(link.id, { maxClicks: 1 });
      expect((await get(link.id)).expired).toBe(false);
      expect((await visit(link.slug)).headers.location).toBe('https://example.com/more');
      expect((await visit(link.slug)).headers.location).toBe(OVER);
    });

    it('the sweep fires link.expired once for an end date that passed, however often it runs', async () => {
      const link = await create({ expiresAt: FUTURE, expiredUrl: OVER });
      await patch(link.id, { expiresAt: PAST });
      await Promise.all([h.sweepExpiry(), h.sweepExpiry()]);
      await h.sweepExpiry();
      expect(await eventually(() => expiredEventsFor(link.id) === 1)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(expiredEventsFor(link.id)).toBe(1);
      // Un-expired and expired again, it fires again.
      await patch(link.id, { expiresAt: FUTURE });
      await patch(link.id, { expiresAt: PAST });
      await h.sweepExpiry();
      expect(await eventually(() => expiredEventsFor(link.id) === 2)).toBe(true);
    });

    it('GET /v1/links?expired=true|false filters', async () => {
      const { apiKey: own } = await h.org('legend');
      const make = async (payload: object) =>
        (await h.v1(own, { method: 'POST', url: '/v1/links', payload: { url: YOUTUBE, ...payload } })).json()
          .id;
      const live = await make({});
      const later = await make({ expiresAt: FUTURE, expiredUrl: OVER });
      const ended = await make({ expiresAt: PAST, expiredUrl: OVER });
      const list = async (query: string) =>
        (await h.v1(own, { method: 'GET', url: `/v1/links?${query}` }))
          .json()
          .links.map((l: { id: string }) => l.id);
      expect(await list('expired=true')).toEqual([ended]);
      expect(await list('expired=false')).toEqual([later, live]);
      const bad = await h.v1(own, { method: 'GET', url: '/v1/links?expired=yes' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe('expired is true or false');
    });

    it('visits to an expired link are recorded with outcome expired', async () => {
      const link = await create({ expiresAt: PAST, expiredUrl: OVER });
      await visit(link.slug);
      await visit(link.slug, UA.instagramIos);
      const clicks = async () =>
        (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/clicks` })).json().clicks as {
          outcome: string;
        }[];
      let listed = await clicks();
      for (let i = 0; i < 100 && listed.length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        listed = await clicks();
      }
      expect(listed.map((click) => click.outcome)).toEqual(['expired', 'expired']);
    });
  });
}
