import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { addVerifiedDomain } from '../helpers/domains.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { postgresKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Two instances of the hosted service on one PostgreSQL store and one Redis: an edit made through one is
 * served by the other on the very next visit, and the /v1 rate limit is shared.
 */
const skip = postgresKind.skipReason ?? redisSkipReason;

describe.skipIf(skip !== null)('two hosted instances sharing PostgreSQL and Redis', () => {
  let first: HostedHarness;
  let second: Composed;
  let secondApp: FastifyInstance;

  beforeAll(async () => {
    first = await startHosted(postgresKind, { REDIS_URL: redisUrl ?? '' });
    const config = parseConfig(
      { BASE_URL, SESSION_SECRET: 'test-session-secret-0123456789abcdef', REDIS_URL: redisUrl ?? '' },
      'hosted',
    );
    second = await composeHosted(config, first.testStore.store, pino({ level: 'silent' }));
    secondApp = second.app;
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  const visit = (app: FastifyInstance, slug: string) =>
    app.inject({
      method: 'GET',
      url: `/${slug}`,
      headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
    });

  it('an edit through one instance is served by the other at once', async () => {
    const { apiKey } = await first.org('legend');
    const link = (
      await first.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com/v1' } })
    ).json();
    expect((await visit(secondApp, link.slug)).headers.location).toBe('https://example.com/v1');
    await first.v1(apiKey, {
      method: 'PATCH',
      url: `/v1/links/${link.id}`,
      payload: { url: 'https://example.com/v2' },
    });
    // Pub/sub is asynchronous: allow the message a moment to arrive, then the very next visit must see v2.
    let location = '';
    for (let i = 0; i < 50 && location !== 'https://example.com/v2'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      location = String((await visit(secondApp, link.slug)).headers.location);
    }
    expect(location).toBe('https://example.com/v2');
  });

  it('a custom hostname created through one instance resolves on the other', async () => {
    const { apiKey, orgId } = await first.org('legend');
    await addVerifiedDomain(first.testStore.store, orgId, 'go.multi.example');
    await first.v1(apiKey, {
      method: 'POST',
      url: '/v1/links',
      payload: { url: 'https://example.com/brand', slug: 'multi', hostname: 'go.multi.example' },
    });
    let status = 0;
    for (let i = 0; i < 50 && status !== 302; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (
        await secondApp.inject({
          method: 'GET',
          url: '/multi',
          headers: { host: 'go.multi.example', 'user-agent': UA.desktopChrome },
        })
      ).statusCode;
    }
    expect(status).toBe(302);
  });

  it('the /v1 rate limit is shared by both instances', async () => {
    const { apiKey } = await first.org('legend');
    for (let i = 0; i < 120; i++) {
      const app = i % 2 === 0 ? first.app : secondApp;
      const response = await app.inject({
        method: 'GET',
        url: '/v1/me',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(response.statusCode).toBe(200);
    }
    const limited = await secondApp.inject({
      method: 'GET',
      url: '/v1/me',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(limited.statusCode).toBe(429);
  });
});
