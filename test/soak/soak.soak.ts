import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { postgresKind } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';
import { UA } from '../helpers/user-agents.js';
import {
  countClicks,
  createFaultDatabase,
  createLinks,
  createOrg,
  type FaultDatabase,
  http,
  type Instance,
  sleep,
  startApiProbe,
  startInstance,
  startTraffic,
  waitFor,
} from '../resilience/harness.js';

/**
 * The soak (`npm run soak`, not part of `npm test`): two `linkhop serve` processes on PostgreSQL and Redis,
 * both reached through TCP proxies, under mixed traffic (desktop redirects, phone escape pages, API reads
 * and writes) for SOAK_MINUTES (default 10), with a 5 s PostgreSQL cut at 40 % of the run and a 5 s Redis
 * cut at 60 %. It prints the figures docs/operations.md quotes and holds the service to them: RSS growth
 * after warm-up under 10 %, open file descriptors flat, no 5xx on redirects, every click recorded once.
 */
const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const runMs = minutes * 60_000;
const warmUpMs = Math.min(60_000, runMs / 5);
const skip = postgresKind.skipReason ?? redisSkipReason;

interface Sample {
  atS: number;
  rssMb: number[];
  fds: number[];
}

const progress = (step: string) => console.info(`[soak] ${new Date().toISOString()} ${step}`);

function sampleOf(instances: readonly Instance[], startedAt: number): Sample {
  const pids = instances.map((instance) => instance.child.pid as number);
  return {
    atS: Math.round((performance.now() - startedAt) / 1000),
    rssMb: pids.map((pid) => {
      const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return Math.round(Number(line?.[1] ?? 0) / 102.4) / 10;
    }),
    fds: pids.map((pid) => readdirSync(`/proc/${pid}/fd`).length),
  };
}

describe.skipIf(skip !== null)(`soak: ${minutes} minutes, two instances, PostgreSQL and Redis cuts`, () => {
  let database: FaultDatabase;
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let instances: Instance[] = [];

  beforeAll(async () => {
    database = await createFaultDatabase();
    const direct = new URL(database.url);
    pgProxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const redisDirect = new URL(redisUrl as string);
    redisProxy = await startTcpProxy({ host: redisDirect.hostname, port: Number(redisDirect.port || 6379) });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.kill()));
    await pgProxy?.close();
    await redisProxy?.close();
    await database?.drop();
  });

  it(
    'holds memory and descriptors flat, answers no 5xx and records every click',
    async () => {
      const org = createOrg(database.url);
      const options = {
        databaseUrl: throughProxy(database.url, pgProxy),
        redisUrl: throughProxy(redisUrl as string, redisProxy),
      };
      instances = await Promise.all([startInstance(options), startInstance(options)]);
      const [first, second] = instances as [Instance, Instance];
      const desktopSlugs = await createLinks(first, org.apiKey, 40);
      const video = await http(`${first.url}/v1/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' }),
      });
      const videoSlug = (JSON.parse(video.body) as { slug: string }).slug;

      const startedAt = performance.now();
      const redirects = startTraffic(instances, desktopSlugs, { concurrency: 4, pauseMs: 2 });
      let phones = 0;
      let phoneErrors = 0;
      let running = true;
      const phoneLane = (async () => {
        while (running) {
          const response = await http(`${second.url}/${videoSlug}`, {
            headers: { host: 'lnk.example', 'user-agent': UA.instagramIos },
          });
          if (response.status === 200) phones += 1;
          else phoneErrors += 1;
          await sleep(20);
        }
      })();
      const probes = [startApiProbe(first, org.apiKey, 1000), startApiProbe(second, org.apiKey, 1000)];
      const samples: Sample[] = [];
      const sampler = setInterval(() => samples.push(sampleOf(instances, startedAt)), 10_000);

      await sleep(runMs * 0.4);
      progress('cutting PostgreSQL for 5 s');
      await pgProxy.cut(5000);
      await sleep(runMs * 0.2);
      progress('cutting Redis for 5 s');
      await redisProxy.cut(5000);
      await sleep(runMs * 0.4);

      clearInterval(sampler);
      running = false;
      progress('stopping the phone lane');
      await phoneLane;
      progress('stopping the redirect lanes');
      const counts = await redirects.stop();
      progress('stopping the API probes');
      const probed = (await Promise.all(probes.map((probe) => probe.stop()))).flat();
      const last = sampleOf(instances, startedAt);
      const afterWarmUp = samples.find((sample) => sample.atS * 1000 >= warmUpMs) ?? samples[0] ?? last;
      const growth = last.rssMb.map(
        (rss, i) => Math.round((rss / (afterWarmUp.rssMb[i] as number) - 1) * 1000) / 10,
      );
      const report = {
        minutes,
        redirects: counts.sent,
        escapePages: phones,
        requestsPerSecond: Math.round((counts.sent + phones) / (runMs / 1000)),
        redirect5xx: counts.fiveXx,
        failedConnections: counts.failed + phoneErrors,
        apiCalls: probed.length,
        apiSlowestMs: Math.round(Math.max(...probed.map((result) => result.ms))),
        rssMbAfterWarmUp: afterWarmUp.rssMb,
        rssMbAtEnd: last.rssMb,
        rssGrowthPercent: growth,
        fdsAfterWarmUp: afterWarmUp.fds,
        fdsAtEnd: last.fds,
        fdsMax: instances.map((_, i) => Math.max(...samples.map((sample) => sample.fds[i] as number))),
      };
      console.info(`[soak] ${JSON.stringify(report, null, 2)}`);

      // A clean stop writes every click recorded: SIGTERM both (bounded: a process that does not exit is a
      // finding, reported as such), then count.
      const exits = await Promise.all(
        instances.map((instance) =>
          Promise.race([instance.stop(), sleep(30_000).then(() => 'still running 30 s after SIGTERM')]),
        ),
      );
      const sent = counts.sent + phones;
      await waitFor(async () => (await countClicks(database.url, org.orgId)).raw >= sent, 15_000, 250);
      const recorded = await countClicks(database.url, org.orgId);
      console.info(
        `[soak] exits ${JSON.stringify(exits)}; clicks sent ${sent}, recorded ${JSON.stringify(recorded)}`,
      );

      expect(counts.fiveXx).toBe(0);
      expect(phoneErrors + counts.failed).toBe(0);
      for (const percent of growth) expect(percent).toBeLessThan(10);
      for (const [i, fds] of last.fds.entries())
        expect(fds).toBeLessThanOrEqual((afterWarmUp.fds[i] as number) + 10);
      for (const result of probed) expect(result.ms).toBeLessThan(2000);
      expect(exits).toEqual([0, 0]);
      expect(recorded).toEqual({ raw: sent, total: sent });
    },
    runMs + 180_000,
  );
});
