import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/database.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { postgresKind, type TestStore } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';
import { UA } from '../helpers/user-agents.js';

type Reply = Awaited<ReturnType<FastifyInstance['inject']>>;
const SECRET = 'test-session-secret-0123456789abcdef';
const OVER = 'https://example.com/sold-out';

/**
 * The click limit across instances (issue #20): two instances sharing PostgreSQL and Redis take a burst of
 * people at once; exactly maxClicks of them reach the destination, every later visit goes to expiredUrl on
 * both, and link.expired is queued once.
 */
describe.skipIf((postgresKind.skipReason ?? redisSkipReason) !== null)('click limit on two instances', () => {
  let a: HostedHarness;
  let b: Composed;
  let apiKey: string;
  beforeAll(async () => {
    a = await startHosted(postgresKind, { REDIS_URL: redisUrl ?? '', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
    const config = parseConfig({ BASE_URL, SESSION_SECRET: SECRET, REDIS_URL: redisUrl ?? '' }, 'hosted');
    b = await composeHosted(config, a.testStore.store, pino({ level: 'silent' }));
    ({ apiKey } = await a.org('legend'));
    // A subscriber that never answers: the event's outbox rows are what is counted.
    await a.v1(apiKey, {
      method: 'POST',
      url: '/v1/webhooks',
      payload: { url: 'http://127.0.0.1:9/never', events: ['link.expired'] },
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const visit = (app: FastifyInstance, slug: string, userAgent: string = UA.desktopChrome): Promise<Reply> =>
    app.inject({ method: 'GET', url: `/${slug}`, headers: { host: 'lnk.example', 'user-agent': userAgent } });

  it('a burst of 40 people over both instances: exactly 10 reach the destination, the rest the expired URL', async () => {
    const link = (
      await a.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/drop', maxClicks: 10, expiredUrl: OVER },
      })
    ).json();
    // Both instances hold the compiled link before the burst.
    await visit(a.app, link.slug, UA.googlebotSmartphone);
    await visit(b.app, link.slug, UA.googlebotSmartphone);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => visit(i % 2 === 0 ? a.app : b.app, link.slug)),
    );
    const locations = replies.map((reply) => reply.headers.location);
    expect(replies.every((reply) => reply.statusCode === 302)).toBe(true);
    expect(locations.filter((l) => l === 'https://example.com/drop')).toHaveLength(10);
    expect(locations.filter((l) => l === OVER)).toHaveLength(30);
    // Bots are re-pointed too once the limit is reached, on both instances (the other within a second).
    for (const app of [a.app, b.app]) {
      const deadline = Date.now() + 1000;
      let location = '';
      while (location !== OVER && Date.now() < deadline) {
        location = String((await visit(app, link.slug, UA.facebookPreview)).headers.location);
        if (location !== OVER) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(location).toBe(OVER);
    }
    const events = await sql<{ n: number | string }>`
      select count(*) as n from webhook_deliveries where event = 'link.expired' and payload like ${`%${link.id}%`}`.execute(
      a.testStore.store.db,
    );
    expect(Number(events.rows[0]?.n)).toBe(1);
    const shown = (await a.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}` })).json();
    expect(shown.expired).toBe(true);
  });

  it('a higher limit set on one instance is served by the other within a second', async () => {
    const link = (
      await a.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/again', maxClicks: 1, expiredUrl: OVER },
      })
    ).json();
    expect((await visit(b.app, link.slug)).headers.location).toBe('https://example.com/again');
    expect((await visit(b.app, link.slug)).headers.location).toBe(OVER);
    await a.v1(apiKey, { method: 'PATCH', url: `/v1/links/${link.id}`, payload: { maxClicks: 2 } });
    const deadline = Date.now() + 1000;
    let location = '';
    while (Date.now() < deadline) {
      location = String((await visit(b.app, link.slug, UA.googlebotSmartphone)).headers.location);
      if (location === 'https://example.com/again') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(location).toBe('https://example.com/again');
  });
});

/**
 * Permanence with PostgreSQL away: a limited link that cannot be counted keeps going to its destination,
 * an expired one keeps going to its expired URL; never a 5xx.
 */
describe.skipIf(postgresKind.skipReason !== null)('expiry with PostgreSQL away', () => {
  let testStore: TestStore;
  let proxy: TcpProxy;
  let store: Store;
  let composed: Composed;
  let apiKey: string;
  beforeAll(async () => {
    testStore = await postgresKind.create();
    const direct = new URL(testStore.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    store = openStore(throughProxy(testStore.url, proxy), {
      ...(testStore.schema ? { schema: testStore.schema } : {}),
      maxConnections: 4,
      statementTimeoutMs: 1500,
    });
    composed = await composeHosted(
      parseConfig({ BASE_URL, SESSION_SECRET: SECRET }, 'hosted'),
      store,
      pino({ level: 'silent' }),
    );
    const accounts = createAccountService({
      repo: createAccountRepo(testStore.store),
      now: () => new Date(),
      uuid: randomUUID,
    });
    const { orgId } = await accounts.createOrganization({ name: 'Away', tier: 'legend' });
    apiKey = (await accounts.mintApiKey(orgId)).apiKey;
  });
  afterAll(async () => {
    proxy?.restore();
    await composed?.close();
    await store?.close();
    await proxy?.close();
    await testStore?.dispose();
  });

  it('limited and expired links keep redirecting while the database is cut', async () => {
    const create = async (payload: object) =>
      (
        await composed.app.inject({
          method: 'POST',
          url: '/v1/links',
          headers: { authorization: `Bearer ${apiKey}` },
          payload,
        })
      ).json() as { slug: string };
    const limited = await create({ url: 'https://example.com/limited', maxClicks: 100, expiredUrl: OVER });
    const ended = await create({
      url: 'https://example.com/ended',
      expiresAt: '2020-01-01T00:00:00Z',
      expiredUrl: OVER,
    });
    const visit = (slug: string) => visitOf(composed.app, slug);
    expect((await visit(limited.slug)).headers.location).toBe('https://example.com/limited');
    expect((await visit(ended.slug)).headers.location).toBe(OVER);
    await proxy.cut();
    try {
      for (let i = 0; i < 3; i++) {
        const counted = await visit(limited.slug);
        expect(counted.statusCode).toBe(302);
        expect(counted.headers.location).toBe('https://example.com/limited');
        const expired = await visit(ended.slug);
        expect(expired.statusCode).toBe(302);
        expect(expired.headers.location).toBe(OVER);
      }
    } finally {
      proxy.restore();
    }
  });
});

function visitOf(app: FastifyInstance, slug: string): Promise<Reply> {
  return app.inject({
    method: 'GET',
    url: `/${slug}`,
    headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
  });
}
