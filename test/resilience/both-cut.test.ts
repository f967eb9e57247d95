import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { postgresKind } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';
import {
  countClicks,
  createFaultDatabase,
  createLinks,
  createOrg,
  type FaultDatabase,
  http,
  type Instance,
  saveLogs,
  sleep,
  startApiProbe,
  startInstance,
  startTraffic,
  waitFor,
} from './harness.js';

/**
 * PostgreSQL and Redis cut together for 5 s under traffic (issue 16, item 7): two `linkhop serve` processes,
 * both dependencies behind TCP proxies. Known links keep redirecting from each instance's own cache, the API
 * answers within 2 s (200 or 503 unavailable), every click is recorded once after recovery, and both
 * instances are healthy within 5 s of the return.
 */
const skip = postgresKind.skipReason ?? redisSkipReason;
const CUT_MS = 5000;

describe.skipIf(skip !== null)(
  'PostgreSQL and Redis cut together for 5 s under traffic, two instances',
  () => {
    let database: FaultDatabase;
    let pgProxy: TcpProxy;
    let redisProxy: TcpProxy;
    let instances: Instance[] = [];
    let org: { orgId: string; apiKey: string };
    let slugs: string[];

    beforeAll(async () => {
      database = await createFaultDatabase();
      const direct = new URL(database.url);
      pgProxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const redisDirect = new URL(redisUrl as string);
      redisProxy = await startTcpProxy({
        host: redisDirect.hostname,
        port: Number(redisDirect.port || 6379),
      });
      org = createOrg(database.url);
      const options = {
        databaseUrl: throughProxy(database.url, pgProxy),
        redisUrl: throughProxy(redisUrl as string, redisProxy),
      };
      instances = await Promise.all([startInstance(options), startInstance(options)]);
      slugs = await createLinks(instances[0] as Instance, org.apiKey, 6);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.kill()));
      await pgProxy?.close();
      await redisProxy?.close();
      await database?.drop();
    });

    it('no exit, no 5xx on known links, every click recorded once, API within 2 s, healthy within 5 s', async () => {
      const [first, second] = instances as [Instance, Instance];
      // Both instances serve every known link once before the cut, so each has it cached.
      const warm = startTraffic(instances, slugs, { concurrency: 2, pauseMs: 5 });
      await sleep(1500);
      await warm.stop();

      const traffic = startTraffic(instances, slugs, { concurrency: 4, pauseMs: 10 });
      const probes = [startApiProbe(first, org.apiKey), startApiProbe(second, org.apiKey)];
      await sleep(1000);
      await Promise.all([pgProxy.cut(CUT_MS), redisProxy.cut(CUT_MS)]);
      await sleep(1000);
      const degraded = await http(`${first.url}/health`, { timeoutMs: 2000 });
      await waitFor(async () => !pgProxy.down && !redisProxy.down, CUT_MS + 1000, 20);
      const healthyAfter = await Promise.all(
        instances.map((instance) =>
          waitFor(async () => {
            const health = await http(`${instance.url}/health`, { timeoutMs: 1000 });
            return health.status === 200 && JSON.parse(health.body).ok === true;
          }, 10_000),
        ),
      );
      await sleep(1500);
      const counts = await traffic.stop();
      const probed = (await Promise.all(probes.map((probe) => probe.stop()))).flat();
      const sent = counts.sent + warm.counts.sent;
      await waitFor(async () => (await countClicks(database.url, org.orgId)).raw >= sent, 15_000, 250);
      await sleep(700);
      const recorded = await countClicks(database.url, org.orgId);
      console.info(
        '[both-cut]',
        JSON.stringify({
          sent,
          recorded,
          byStatus: counts.byStatus,
          apiSlowestMs: Math.round(Math.max(...probed.map((result) => result.ms))),
          healthyAfterMs: healthyAfter.map((ms) => (ms === null ? null : Math.round(ms))),
        }),
      );
      saveLogs(instances, 'both-cut');

      for (const instance of instances) expect(instance.exit).toBeNull();
      expect(counts.fiveXx).toBe(0);
      expect(counts.failed).toBe(0);
      expect(Object.keys(counts.byStatus)).toEqual(['302']);
      expect(degraded.status).toBe(503);
      expect(JSON.parse(degraded.body)).toMatchObject({
        ok: false,
        status: 'degraded',
        db: 'down',
        redis: 'down',
      });
      for (const result of probed) {
        expect(result.ms).toBeLessThan(2000);
        expect(result.status === 200 || (result.status === 503 && result.error === 'unavailable')).toBe(true);
      }
      for (const ms of healthyAfter) expect(ms).not.toBeNull();
      for (const ms of healthyAfter) expect(ms as number).toBeLessThan(5000);
      expect(recorded).toEqual({ raw: sent, total: sent });
    }, 90_000);
  },
);
