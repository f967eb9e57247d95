import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/analytics/model.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import type { ClickInput } from '../../src/analytics/write/click-input.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { type StoreKind, storeKinds } from '../helpers/stores.js';
import { type Receiver, startReceiver } from '../webhooks/setup.js';

/**
 * A/B tests that conclude (issue #33, items 5 and 6), through the composed hosted service on each store:
 * the readout against a seeded outcome set with a known answer, promote end to end (the short link goes
 * to the winner afterwards, the test stays readable, one audit row, one link.updated delivered), the
 * auto-promote rule (once, across repeated and concurrent sweeps, by the system), and the errors.
 */

const DAY_MS = 86_400_000;
const today = () => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
const AB = [
  { u: 'https://example.com/variant-a', w: 1 },
  { u: 'https://example.com/variant-b', w: 1 },
];

/** Per variant: human visits, then opened and not opened (browser, broken) among its taps. */
interface Seed {
  visits: number;
  opened: number;
  browser: number;
  broken?: number;
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`A/B tests that conclude on ${kind.name}`, () => {
    let h: HostedHarness;
    let orgId: string;
    let key: string;
    let receiver: Receiver;

    beforeAll(async () => {
      receiver = await startReceiver();
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
      ({ orgId, apiKey: key } = await h.org('legend'));
    });
    afterAll(async () => {
      await h?.close();
      await receiver?.close();
    });

    const v1 = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, apiKey = key) =>
      h.v1(apiKey, { method, url: `/v1${url}`, ...(payload ? { payload } : {}) });
    const createLink = async (body: object, apiKey = key) => {
      const response = await v1('POST', '/links', body, apiKey);
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { id: string; slug: string; destination: string; updatedAt: string };
    };

    /** Writes the clicks and tap outcomes through the analytics store, as the writer and the beacon do. */
    async function seed(linkId: string, variants: Seed[], owner = orgId) {
      const repo = createAnalyticsRepo(h.testStore.store);
      const at = Date.now();
      const clicks: ClickInput[] = [];
      const outcomes: { tapId: string; variant: number; outcome: Outcome }[] = [];
      variants.forEach((seedOf, variant) => {
        const taps: Outcome[] = [
          ...Array<Outcome>(seedOf.opened).fill('opened'),
          ...Array<Outcome>(seedOf.browser).fill('browser'),
          ...Array<Outcome>(seedOf.broken ?? 0).fill('broken'),
        ];
        for (let i = 0; i < seedOf.visits; i++) {
          const tapId = i < taps.length ? randomUUID() : null;
          clicks.push({
            linkId,
            orgId: owner,
            at,
            bot: false,
            variant,
            routed: AB[variant]?.u ?? null,
            country: 'US',
            city: null,
            device: tapId ? 'ios' : 'desktop',
            sourceApp: tapId ? 'instagram' : null,
            referrerHost: null,
            platformKey: null,
            tapId,
          });
          if (tapId) outcomes.push({ tapId, variant, outcome: taps[i] as Outcome });
        }
        // Bots are stored apart and never counted.
        clicks.push({ ...(clicks.at(-1) as ClickInput), bot: true, tapId: null });
      });
      expect(await repo.writeClicks(clicks)).toBe(true);
      for (const o of outcomes) {
        const inserted = await repo.insertOutcome({
          tapId: o.tapId,
          orgId: owner,
          linkId,
          day: Math.floor(at / DAY_MS),
          outcome: o.outcome,
          variant: o.variant,
          platformKey: null,
          at,
        });
        expect(inserted).toBe(true);
      }
    }

    const auditRows = (linkId: string) =>
      h.testStore.store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('target_id', '=', linkId)
        .where('action', '=', 'link.ab_promoted')
        .execute();

    it('the readout of a seeded test: B opens 60 of 100, A 30 of 100, so B is best with p > 0.99', async () => {
      const link = await createLink({ url: 'https://example.com/base', ab: AB });
      await seed(link.id, [
        { visits: 120, opened: 30, browser: 60, broken: 10 },
        { visits: 110, opened: 60, browser: 40 },
      ]);
      const response = await v1('GET', `/links/${link.id}/ab`);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({
        linkId: link.id,
        testId: null,
        status: 'running',
        promotedAt: null,
        promotedVariant: null,
        promotedBy: null,
        autoPromote: null,
        window: { from: today(), to: today() },
        samples: 20_000,
        configured: true,
        sampled: true,
        history: [],
      });
      expect(
        body.variants.map(({ probabilityBest: _, ...rest }: { probabilityBest: number }) => rest),
      ).toEqual([
        {
          variant: 0,
          url: AB[0]?.u,
          weight: 1,
          visits: 120,
          outcomes: { opened: 30, browser: 60, broken: 10 },
          openRate: 0.3,
        },
        {
          variant: 1,
          url: AB[1]?.u,
          weight: 1,
          visits: 110,
          outcomes: { opened: 60, browser: 40, broken: 0 },
          openRate: 0.6,
        },
      ]);
      expect(body.variants[1].probabilityBest).toBeGreaterThan(0.99);
      expect(body.variants[0].probabilityBest).toBeLessThan(0.01);
      // Seeded by the link: every read agrees, and the dashboard's twin reads the same.
      expect((await v1('GET', `/links/${link.id}/ab`)).json()).toEqual(body);
    });

    it('equal outcomes: about one half each', async () => {
      const link = await createLink({ url: 'https://example.com/base', ab: AB });
      await seed(link.id, [
        { visits: 100, opened: 30, browser: 70 },
        { visits: 100, opened: 30, browser: 70 },
      ]);
      const [a, b] = (await v1('GET', `/links/${link.id}/ab`)).json().variants;
      expect(Math.abs(a.probabilityBest - 0.5)).toBeLessThan(0.02);
      expect(a.probabilityBest + b.probabilityBest).toBeCloseTo(1, 3);
    });

    it('promote: the winner becomes the destination, the short link goes there, the test stays readable', async () => {
      const hook = await v1('POST', '/webhooks', { url: `${receiver.url}/ab`, events: ['link.updated'] });
      expect(hook.statusCode, hook.body).toBe(201);
      const link = await createLink({ url: 'https://example.com/base', ab: AB });
      // A real visit is counted for the variant it was sent to (once the click writer's batch is in).
      const before = await h.visit(link.slug);
      expect(before.statusCode).toBe(302);
      const visited = AB.findIndex((variant) => variant.u === before.headers.location);
      expect(visited).toBeGreaterThanOrEqual(0);
      const visitsOf = async () =>
        (await v1('GET', `/links/${link.id}/ab`)).json().variants.map((v: { visits: number }) => v.visits);
      for (let i = 0; i < 100 && (await visitsOf()).every((n: number) => n === 0); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await visitsOf()).toEqual(AB.map((_, i) => (i === visited ? 1 : 0)));
      const expected = AB.map((_, i) => (i === visited ? 41 : 40));
      await seed(link.id, [
        { visits: 40, opened: 10, browser: 20 },
        { visits: 40, opened: 25, browser: 5 },
      ]);

      const promoted = await v1('POST', `/links/${link.id}/ab/promote`, { variant: 1 });
      expect(promoted.statusCode, promoted.body).toBe(200);
      const { link: after, test } = promoted.json();
      expect(after).toMatchObject({ id: link.id, destination: AB[1]?.u, ab: null, abAutoPromote: null });
      expect(test).toMatchObject({
        status: 'concluded',
        promotedVariant: 1,
        promotedBy: 'user',
        testId: expect.any(String),
        window: { from: today(), to: today() },
      });
      expect(test.variants.map((v: { visits: number }) => v.visits)).toEqual(expected);
      expect(test.history).toEqual([
        {
          id: test.testId,
          startedAt: test.startedAt,
          promotedAt: test.promotedAt,
          promotedVariant: 1,
          promotedBy: 'user',
          url: AB[1]?.u,
        },
      ]);

      // Every visit now goes to the winner (the cache was dropped), and records no variant.
      for (let i = 0; i < 5; i++) {
        const visit = await h.visit(link.slug);
        expect(visit.statusCode).toBe(302);
        expect(visit.headers.location).toBe(AB[1]?.u);
      }
      // The concluded test is still the link's readout, with the numbers it had.
      const read = (await v1('GET', `/links/${link.id}/ab`)).json();
      expect(read).toMatchObject({ status: 'concluded', testId: test.testId, promotedVariant: 1 });
      expect(read.variants).toEqual(test.variants);
      expect((await v1('GET', `/links/${link.id}/ab?test=${test.testId}`)).json()).toEqual(read);

      // Ended once: a second promote has nothing to promote.
      const again = await v1('POST', `/links/${link.id}/ab/promote`, { variant: 0 });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toBe('ab_not_running');

      // One audit row, the key's, with what changed and what the decision rested on.
      const rows = await auditRows(link.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.actor_type).toBe('key');
      const changes = JSON.parse(rows[0]?.changes ?? '{}');
      expect(changes).toMatchObject({
        destination: { from: 'https://example.com/base', to: AB[1]?.u },
        ab: { from: AB, to: null },
        promotedVariant: 1,
        promotedBy: 'user',
        visits: expected,
      });
      expect(changes.probabilityBest).toBeGreaterThan(0.9);

      // link.updated, through the outbox, to a real receiver.
      for (let i = 0; i < 200 && !receiver.receipts.some((r) => r.path === '/ab'); i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      const deliveries = receiver.receipts.filter((r) => r.path === '/ab');
      expect(deliveries.map((d) => d.headers['x-service-event'])).toEqual(['link.updated']);
      const envelope = JSON.parse(deliveries[0]?.raw.toString('utf8') ?? '{}');
      expect(envelope.data).toMatchObject({ id: link.id, destination: AB[1]?.u, ab: null });
    });

    it('a new test on the same link: the history keeps the earlier one', async () => {
      const link = await createLink({ url: 'https://example.com/base', ab: AB });
      const first = (await v1('POST', `/links/${link.id}/ab/promote`, { variant: 0 })).json().test;
      const next = [
        { u: 'https://example.com/c', w: 2 },
        { u: 'https://example.com/d', w: 1 },
        { u: 'https://example.com/e', w: 1 },
      ];
      expect((await v1('PATCH', `/links/${link.id}`, { ab: next })).statusCode).toBe(200);
      const running = (await v1('GET', `/links/${link.id}/ab`)).json();
      expect(running.status).toBe('running');
      expect(running.variants.map((v: { url: string }) => v.url)).toEqual(next.map((v) => v.u));
      expect(running.history.map((t: { id: string }) => t.id)).toEqual([first.testId]);
      expect(running.startedAt >= first.promotedAt).toBe(true);
      // New weights keep the test; new URLs start another.
      await v1('PATCH', `/links/${link.id}`, { ab: next.map((v) => ({ ...v, w: 1 })) });
      expect((await v1('GET', `/links/${link.id}/ab`)).json().startedAt).toBe(running.startedAt);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await v1('PATCH', `/links/${link.id}`, { ab: next.slice(0, 2) });
      expect((await v1('GET', `/links/${link.id}/ab`)).json().startedAt > running.startedAt).toBe(true);
      const old = (await v1('GET', `/links/${link.id}/ab?test=${first.testId}`)).json();
      expect(old).toMatchObject({ status: 'concluded', promotedVariant: 0 });
      expect(old.variants.map((v: { url: string }) => v.url)).toEqual(AB.map((v) => v.u));
    });

    it('abAutoPromote: validated, gated, cleared with the variants', async () => {
      const rule = { minVisits: 50, confidence: 0.95 };
      const created = await createLink({ url: 'https://example.com/base', ab: AB, abAutoPromote: rule });
      expect((await v1('GET', `/links/${created.id}`)).json().abAutoPromote).toEqual(rule);
      const alone = await v1('POST', '/links', { url: 'https://example.com/x', abAutoPromote: rule });
      expect(alone.statusCode).toBe(400);
      expect(alone.json()).toMatchObject({ error: 'invalid_body', issues: [{ path: ['abAutoPromote'] }] });
      for (const bad of [
        { minVisits: 0, confidence: 0.95 },
        { minVisits: 10, confidence: 0.5 },
        { minVisits: 10, confidence: 1 },
        { minVisits: 1.5, confidence: 0.9 },
        { minVisits: 10 },
      ]) {
        const response = await v1('PATCH', `/links/${created.id}`, { abAutoPromote: bad });
        expect(response.statusCode, JSON.stringify(bad)).toBe(400);
        expect(response.json().error).toBe('invalid_body');
      }
      const cleared = await v1('PATCH', `/links/${created.id}`, { ab: null });
      expect(cleared.json()).toMatchObject({ ab: null, abAutoPromote: null });
      // A plan without A/B tests cannot set the rule (hero can, through the dashboard).
      const hero = await h.owner('hero');
      const viaApi = await h.api(hero.cookie, {
        method: 'POST',
        url: '/api/links',
        payload: { url: 'https://example.com/h', ab: AB, abAutoPromote: rule },
      });
      expect(viaApi.statusCode, viaApi.body).toBe(201);
      const sidekick = await h.owner('sidekick');
      const refused = await h.api(sidekick.cookie, {
        method: 'POST',
        url: '/api/links',
        payload: { url: 'https://example.com/s', abAutoPromote: rule },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('ab_testing');
    });

    it('auto-promote: once the rule is met, once, by the system, across repeated and concurrent sweeps', async () => {
      const rule = { minVisits: 100, confidence: 0.95 };
      const notYet = await createLink({ url: 'https://example.com/base', ab: AB, abAutoPromote: rule });
      const ready = await createLink({ url: 'https://example.com/base', ab: AB, abAutoPromote: rule });
      const unsure = await createLink({ url: 'https://example.com/base', ab: AB, abAutoPromote: rule });
      await seed(notYet.id, [
        { visits: 99, opened: 10, browser: 80 },
        { visits: 150, opened: 90, browser: 10 },
      ]);
      await seed(ready.id, [
        { visits: 100, opened: 30, browser: 70 },
        { visits: 100, opened: 60, browser: 40 },
      ]);
      await seed(unsure.id, [
        { visits: 200, opened: 45, browser: 55 },
        { visits: 200, opened: 50, browser: 50 },
      ]);
      // A second instance on the same store sweeps at the same time as this one.
      const sameStore: StoreKind = {
        ...kind,
        create: async () => ({ ...h.testStore, dispose: async () => {} }),
      };
      const second = await startHosted(sameStore);
      try {
        await Promise.all([h.sweepAbTests(), second.sweepAbTests(), h.sweepAbTests()]);
        await h.sweepAbTests();
        await second.sweepAbTests();
      } finally {
        await second.close();
      }

      const readyLink = (await v1('GET', `/links/${ready.id}`)).json();
      expect(readyLink).toMatchObject({ destination: AB[1]?.u, ab: null, abAutoPromote: null });
      const readout = (await v1('GET', `/links/${ready.id}/ab`)).json();
      expect(readout).toMatchObject({
        status: 'concluded',
        promotedVariant: 1,
        promotedBy: 'auto',
        autoPromote: rule,
      });
      expect(readout.history).toHaveLength(1);
      const rows = await auditRows(ready.id);
      expect(rows.map((row) => [row.actor_type, row.actor_id])).toEqual([['system', 'ab-auto-promote']]);
      const tests = await h.testStore.store.db
        .selectFrom('ab_tests')
        .select('link_id')
        .where('link_id', 'in', [notYet.id, ready.id, unsure.id])
        .execute();
      expect(tests.map((row) => row.link_id)).toEqual([ready.id]);
      // Short of visits, or not sure enough: still running.
      for (const link of [notYet, unsure]) {
        const still = (await v1('GET', `/links/${link.id}/ab`)).json();
        expect(still.status).toBe('running');
      }
      expect((await h.visit(ready.slug)).headers.location).toBe(AB[1]?.u);
      // The audit log's API shows the system as the actor.
      const log = await v1('GET', `/audit-log?targetId=${ready.id}&action=link.ab_promoted`);
      expect(log.json().entries.map((e: { actor: unknown }) => e.actor)).toEqual([
        { type: 'system', id: 'ab-auto-promote', label: 'A/B auto-promote' },
      ]);
    });

    it('errors: bad variant, no test, unknown test, another organization, plan, scope', async () => {
      const link = await createLink({ url: 'https://example.com/base', ab: AB });
      const plain = await createLink({ url: 'https://example.com/plain' });
      const unknown = await v1('POST', `/links/${link.id}/ab/promote`, { variant: 2 });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toEqual({
        error: 'unknown_variant',
        message: 'The A/B test has variants 0 to 1',
        issues: [{ code: 'custom', path: ['variant'], message: 'The A/B test has variants 0 to 1' }],
      });
      for (const payload of [{ variant: -1 }, { variant: 'b' }, {}, { variant: 0, extra: 1 }]) {
        const response = await v1('POST', `/links/${link.id}/ab/promote`, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json().error).toBe('invalid_body');
      }
      const notRunning = await v1('POST', `/links/${plain.id}/ab/promote`, { variant: 0 });
      expect(notRunning.statusCode).toBe(409);
      expect(notRunning.json().error).toBe('ab_not_running');
      const none = await v1('GET', `/links/${plain.id}/ab`);
      expect(none.statusCode).toBe(404);
      expect(none.json()).toEqual({ error: 'no_ab_test', message: 'This link has no A/B test' });
      expect((await v1('GET', `/links/${link.id}/ab?test=${randomUUID()}`)).statusCode).toBe(404);
      expect((await v1('GET', `/links/${link.id}/ab?test=nope`)).statusCode).toBe(400);

      const other = await h.org('legend');
      expect((await v1('GET', `/links/${link.id}/ab`, undefined, other.apiKey)).statusCode).toBe(404);
      const foreign = await v1('POST', `/links/${link.id}/ab/promote`, { variant: 0 }, other.apiKey);
      expect(foreign.statusCode).toBe(404);

      // A key may read the readout with analytics:read and promote only with links:write.
      const readOnly = await h.accounts.mintApiKey(orgId, { name: 'reader', scopes: ['analytics:read'] });
      expect((await v1('GET', `/links/${link.id}/ab`, undefined, readOnly.apiKey)).statusCode).toBe(200);
      const scoped = await v1('POST', `/links/${link.id}/ab/promote`, { variant: 0 }, readOnly.apiKey);
      expect(scoped.statusCode).toBe(403);
      expect(scoped.json().error).toBe('forbidden_scope');

      // A plan without A/B tests (a hero moved down to sidekick) reads and promotes nothing.
      const hero = await h.owner('hero');
      const heroLink = (
        await h.api(hero.cookie, {
          method: 'POST',
          url: '/api/links',
          payload: { url: 'https://example.com/h', ab: AB },
        })
      ).json();
      expect(
        (await h.api(hero.cookie, { method: 'GET', url: `/api/links/${heroLink.id}/ab` })).statusCode,
      ).toBe(200);
      await h.accounts.setTier(hero.orgId, 'sidekick');
      for (const request of [
        { method: 'GET' as const, url: `/api/links/${heroLink.id}/ab` },
        { method: 'POST' as const, url: `/api/links/${heroLink.id}/ab/promote`, payload: { variant: 0 } },
      ]) {
        const response = await h.api(hero.cookie, request);
        expect(response.statusCode).toBe(403);
        expect(response.json().error).toBe('ab_testing');
      }
      // Nothing changed: the variants still run.
      expect((await h.visit(heroLink.slug)).statusCode).toBe(302);
      expect(await auditRows(link.id)).toEqual([]);
    });
  });
}
