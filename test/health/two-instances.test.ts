import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { postgresKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Destination health on two instances sharing PostgreSQL and Redis (issue #33): both run the checker at
 * once and the host is still asked at most once a second (one lease per host in the database); when the
 * destination turns down on one instance's check, the other instance's visits switch to the fallback
 * within a second (Redis invalidation), and back again when it is up.
 */
describe.skipIf((postgresKind.skipReason ?? redisSkipReason) !== null)(
  'destination health on two instances',
  () => {
    let a: HostedHarness;
    let b: Composed;
    let server: Server;
    let origin: string;
    let clock = Date.now();
    let answer = 200;
    const asked: number[] = [];

    beforeAll(async () => {
      server = createServer((_req, res) => {
        asked.push(performance.now());
        res.writeHead(answer).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const env = { REDIS_URL: redisUrl ?? '', HEALTH_ALLOW_PRIVATE_TARGETS: '1', HEALTH_CHECKS: 'off' };
      a = await startHosted(postgresKind, env, { now: () => clock });
      const config = parseConfig(
        { BASE_URL, SESSION_SECRET: 'test-session-secret-0123456789abcdef', ...env },
        'hosted',
      );
      b = await composeHosted(config, a.testStore.store, pino({ level: 'silent' }), { now: () => clock });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    });

    const visit = async (app: FastifyInstance, slug: string) =>
      (
        await app.inject({
          method: 'GET',
          url: `/${slug}`,
          headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
        })
      ).headers.location;
    /** The location instance `app` serves once it says `expected`, within a second. */
    const within = async (app: FastifyInstance, slug: string, expected: string) => {
      const until = performance.now() + 1000;
      let location = await visit(app, slug);
      while (location !== expected && performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        location = await visit(app, slug);
      }
      return location;
    };
    /** Both instances check at once, `after` (15 minutes) later on the shared clock. */
    const bothCheck = async (after = 15 * 60_000) => {
      clock += after;
      await Promise.all([a.checkDestinations(), b.checkDestinations?.()]);
    };

    it('both check without asking a host twice a second; the switch to the fallback and back reaches the other instance', async () => {
      const { apiKey } = await a.org('legend');
      const urls = [`${origin}/one`, `${origin}/two`, `${origin}/three`];
      const links = [];
      for (const url of urls) {
        const response = await a.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url, fallbackUrl: 'https://example.com/instead' },
        });
        expect(response.statusCode).toBe(201);
        links.push(response.json() as { slug: string });
      }
      const slug = (links[0] as { slug: string }).slug;
      // Both instances hold the compiled link.
      expect(await visit(a.app, slug)).toBe(urls[0]);
      expect(await visit(b.app, slug)).toBe(urls[0]);

      await bothCheck();
      // Three destinations on one host, checked by whichever instance holds its lease: one request a second.
      expect(asked).toHaveLength(3);
      const times = [...asked].sort((x, y) => x - y);
      for (let i = 1; i < times.length; i++)
        expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(990);

      answer = 503;
      // Quiet destinations (no visits rolled up yet) are checked again a day later, then every 15 minutes.
      await bothCheck(24 * 3600_000);
      for (let i = 0; i < 2; i++) await bothCheck();
      expect(await within(b.app, slug, 'https://example.com/instead')).toBe('https://example.com/instead');
      expect(await visit(a.app, slug)).toBe('https://example.com/instead');

      answer = 200;
      await bothCheck();
      expect(await within(b.app, slug, urls[0] as string)).toBe(urls[0]);
      expect(await visit(a.app, slug)).toBe(urls[0]);
    }, 60_000);
  },
);
