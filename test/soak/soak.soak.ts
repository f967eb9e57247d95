import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { postgresKind } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';
import { UA } from '../helpers/user-agents.js';
import {
  type ApiProbe,
  countClicks,
  createFaultDatabase,
  createLinks,
  createOrg,
  type FaultDatabase,
  http,
  type Instance,
  type InstanceOptions,
  sleep,
  startApiProbe,
  startInstance,
  startTraffic,
  type TrafficCounts,
  waitFor,
} from '../resilience/harness.js';
import { diffHeaps, formatHeapDiff, summarizeSnapshotFile } from './heap-diff.js';

/**
 * The soak (`npm run soak`, not part of `npm test`): two `linkhop serve` processes on PostgreSQL and Redis,
 * both reached through TCP proxies, under mixed traffic (desktop redirects, phone escape pages, API reads
 * and writes) for SOAK_MINUTES (default 10), with a 5 s PostgreSQL cut at 40 % of the run and a 5 s Redis
 * cut at 60 %. It prints the figures docs/operations.md quotes and holds the service to them: RSS growth
 * after warm-up under rssLimitPercent, open file descriptors flat, no 5xx on redirects, every click
 * recorded once. `npm run soak -- --minutes 30` sets SOAK_MINUTES (scripts/soak.mjs).
 *
 * With heap snapshots (the default; `--no-heap-snapshots` or SOAK_HEAP_SNAPSHOTS=0 for none), a third
 * instance under the same traffic writes one at the end of warm-up and one at the end, and the report
 * compares them by object type (test/soak/heap-diff.ts): what grew, by how much. Not the two measured
 * instances: writing a snapshot leaves a process 100+ MB larger for good (the snapshot's own memory, freed
 * but kept by the allocator) and its RSS climbing for minutes after (a 3-minute run: 212 -> 337 MB), which
 * would swamp the few percent the soak judges. Traffic pauses while a snapshot is written: it stops the
 * process for seconds (40 on a loaded 2-core machine), which would read as timeouts.
 */
const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const runMs = minutes * 60_000;
/**
 * Warm-up: a minute of a short run; the first third of a run of 30 minutes or more. The 30-minute curve on a
 * quiet 2-core machine (docs/operations.md, "Memory") shows why: both instances climb from 154 MB at one
 * minute to 159-161 MB by minute eight or nine, then stay within 2 MB of that to the end (second half +0.6 %
 * and +1.6 %), and the heap snapshots put the climb in `(code)`: V8 still optimizing this traffic's
 * functions minutes in. The leak check is the second half's own growth (rssSecondHalfLimitPercent).
 */
const warmUpMs = minutes >= 30 ? runMs / 3 : Math.min(60_000, runMs / 5);
const heapSnapshots = process.env.SOAK_HEAP_SNAPSHOTS !== '0';
const SAMPLE_MS = 10_000;
const skip = postgresKind.skipReason ?? redisSkipReason;

/**
 * RSS growth allowed after warm-up, in percent (issue #36). Thirty minutes and more: under 5 %; by then
 * pools, caches and compiled code have long settled, and what still grows is a leak. Shorter runs keep
 * the 10 % the 10-minute soak always had: settling is a larger share of a short run's growth, and the
 * limit is only to be changed with a 30-minute curve that shows why, not widened to make a run pass.
 */
function rssLimitPercent(runMinutes: number): number {
  return runMinutes >= 30 ? 5 : 10;
}

/** What a leak cannot hide under: the second half of the run grows by under half the limit. */
const rssSecondHalfLimitPercent = (runMinutes: number) => rssLimitPercent(runMinutes) / 2;

interface Sample {
  atS: number;
  rssMb: number[];
  fds: number[];
}

const progress = (step: string) => console.info(`[soak] ${new Date().toISOString()} ${step}`);

/** The mixed traffic of the soak; stopped (every request in flight answered) for the heap snapshots. */
interface LoadCounts {
  redirects: Pick<TrafficCounts, 'sent' | 'fiveXx' | 'failed' | 'failures'>;
  phones: number;
  phoneErrors: number;
  /** The first escape-page failures: the status, or why no answer came. */
  phoneFailures: string[];
  probed: ApiProbe['results'];
  /** How long it ran. */
  ms: number;
}

function startLoad(
  instances: readonly Instance[],
  traffic: { desktopSlugs: string[]; videoSlug: string; apiKey: string },
): { stop(): Promise<LoadCounts> } {
  const [first, second] = instances as [Instance, Instance];
  const started = performance.now();
  const redirects = startTraffic(instances, traffic.desktopSlugs, { concurrency: 4, pauseMs: 2 });
  const phone = { running: true, ok: 0, errors: 0, failures: [] as string[] };
  // One lane of escape pages per instance but the first: the second's, and the heap-snapshot instance's
  // (so its snapshots see every path the measured instances serve).
  const phoneLane = async (instance: Instance) => {
    while (phone.running) {
      const response = await http(`${instance.url}/${traffic.videoSlug}`, {
        headers: { host: 'lnk.example', 'user-agent': UA.instagramIos },
      });
      if (response.status === 200) phone.ok += 1;
      else {
        phone.errors += 1;
        if (phone.failures.length < 20)
          phone.failures.push(
            `${instance.url}: ${response.status || response.error} after ${Math.round(response.ms)} ms`,
          );
      }
      await sleep(20);
    }
  };
  const phoneLanes = Promise.all(instances.slice(1).map(phoneLane));
  const probes = [startApiProbe(first, traffic.apiKey, 1000), startApiProbe(second, traffic.apiKey, 1000)];
  return {
    async stop() {
      phone.running = false;
      await phoneLanes;
      const counts = await redirects.stop();
      const probed = (await Promise.all(probes.map((probe) => probe.stop()))).flat();
      return {
        redirects: counts,
        phones: phone.ok,
        phoneErrors: phone.errors,
        phoneFailures: phone.failures,
        probed,
        ms: performance.now() - started,
      };
    },
  };
}

function addLoad(a: LoadCounts, b: LoadCounts): LoadCounts {
  return {
    redirects: {
      sent: a.redirects.sent + b.redirects.sent,
      fiveXx: a.redirects.fiveXx + b.redirects.fiveXx,
      failed: a.redirects.failed + b.redirects.failed,
      failures: [...a.redirects.failures, ...b.redirects.failures],
    },
    phones: a.phones + b.phones,
    phoneErrors: a.phoneErrors + b.phoneErrors,
    phoneFailures: [...a.phoneFailures, ...b.phoneFailures],
    probed: [...a.probed, ...b.probed],
    ms: a.ms + b.ms,
  };
}

const heapSnapshotFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.heapsnapshot'))
    .map((name) => join(dir, name));

/** Whether a snapshot file ends the way a whole one does (`...]}`): Node writes it front to back. */
function endsComplete(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const tail = Buffer.alloc(16);
    const size = statSync(path).size;
    const read = readSync(fd, tail, 0, 16, Math.max(0, size - 16));
    return tail.subarray(0, read).toString('latin1').trimEnd().endsWith(']}');
  } finally {
    closeSync(fd);
  }
}

/**
 * SIGUSR2 (the instance runs with --heapsnapshot-signal), then waits for the new file to be whole: its
 * size unchanged over one poll and its last bytes closing the JSON. heap-diff refuses a partial file too.
 */
async function takeHeapSnapshot(instance: Instance, dir: string): Promise<string> {
  const earlier = new Set(heapSnapshotFiles(dir));
  instance.child.kill('SIGUSR2');
  const deadline = performance.now() + 180_000;
  let path: string | undefined;
  let size = -1;
  while (performance.now() < deadline) {
    await sleep(500);
    path ??= heapSnapshotFiles(dir).find((file) => !earlier.has(file));
    if (path === undefined) continue;
    const now = statSync(path).size;
    if (now > 0 && now === size && endsComplete(path)) return path;
    size = now;
  }
  throw new Error(`no complete heap snapshot in ${dir} within 180 s`);
}

/** Growth in percent, one decimal. */
const growthPercent = (from: readonly number[], to: readonly number[]) =>
  to.map((value, i) => Math.round((value / (from[i] as number) - 1) * 1000) / 10);

/** The RSS curve, one line per instance: every sample, MB, oldest first. */
function rssCurve(samples: readonly Sample[], labels: readonly string[]): string[] {
  return labels.map((label, i) => `${label}: ${samples.map((sample) => sample.rssMb[i]).join(' ')}`);
}

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
  const snapshotDir = heapSnapshots ? mkdtempSync(join(tmpdir(), 'linkhop-soak-heap-')) : undefined;

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
    if (!snapshotDir) return;
    // Hundreds of MB; SOAK_KEEP_SNAPSHOTS=1 keeps them to open in Chrome DevTools (Memory tab).
    if (process.env.SOAK_KEEP_SNAPSHOTS) console.info(`[soak] heap snapshots kept in ${snapshotDir}`);
    else rmSync(snapshotDir, { recursive: true, force: true });
  });

  it(
    'holds memory and descriptors flat, answers no 5xx and records every click',
    async () => {
      const org = createOrg(database.url);
      const options: InstanceOptions = {
        databaseUrl: throughProxy(database.url, pgProxy),
        redisUrl: throughProxy(redisUrl as string, redisProxy),
      };
      instances = await Promise.all([
        startInstance(options),
        startInstance(options),
        ...(snapshotDir ? [startInstance({ ...options, heapSnapshotDir: snapshotDir })] : []),
      ]);
      const measured = [0, 1];
      const heapInstance = snapshotDir ? (instances[2] as Instance) : null;
      const labels = ['instance 1', 'instance 2', 'heap-snapshot instance'].slice(0, instances.length);
      const [first] = instances as [Instance];
      const desktopSlugs = await createLinks(first, org.apiKey, 40);
      const video = await http(`${first.url}/v1/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' }),
      });
      const traffic = {
        desktopSlugs,
        videoSlug: (JSON.parse(video.body) as { slug: string }).slug,
        apiKey: org.apiKey,
      };

      const startedAt = performance.now();
      // The schedule is kept in run time, so a slow snapshot shortens the traffic, not moves the cuts.
      const until = (fraction: number) => sleep(startedAt + runMs * fraction - performance.now());
      const samples: Sample[] = [];
      const sampler = setInterval(() => samples.push(sampleOf(instances, startedAt)), SAMPLE_MS);
      let load = startLoad(instances, traffic);

      await sleep(warmUpMs);
      const afterWarmUp = sampleOf(instances, startedAt);
      let counts: LoadCounts | null = null;
      let warmUpSnapshot: string | null = null;
      if (heapInstance) {
        counts = await load.stop();
        progress('warm-up heap snapshot');
        warmUpSnapshot = await takeHeapSnapshot(heapInstance, snapshotDir as string);
        load = startLoad(instances, traffic);
      }

      await until(0.4);
      progress('cutting PostgreSQL for 5 s');
      await pgProxy.cut(5000);
      await until(0.6);
      progress('cutting Redis for 5 s');
      await redisProxy.cut(5000);
      await until(1);

      clearInterval(sampler);
      progress('stopping the traffic');
      const lastLoad = await load.stop();
      counts = counts ? addLoad(counts, lastLoad) : lastLoad;
      const last = sampleOf(instances, startedAt);
      const endSnapshot = heapInstance ? await takeHeapSnapshot(heapInstance, snapshotDir as string) : null;
      const midway = samples.find((sample) => sample.atS * 1000 >= runMs / 2) ?? last;
      const growth = growthPercent(afterWarmUp.rssMb, last.rssMb);
      const { redirects, phones, phoneErrors, phoneFailures, probed } = counts;
      const secondHalf = growthPercent(midway.rssMb, last.rssMb);
      const report = {
        minutes,
        trafficSeconds: Math.round(counts.ms / 1000),
        redirects: redirects.sent,
        escapePages: phones,
        requestsPerSecond: Math.round((redirects.sent + phones) / (counts.ms / 1000)),
        redirect5xx: redirects.fiveXx,
        failedConnections: redirects.failed + phoneErrors,
        failures: [
          ...redirects.failures.map(
            (failure) =>
              `${failure.instance}: ${failure.error} after ${Math.round(failure.ms)} ms, ${Math.round((failure.at - startedAt) / 1000)} s in`,
          ),
          ...phoneFailures,
        ],
        apiCalls: probed.length,
        apiSlowestMs: Math.round(Math.max(...probed.map((result) => result.ms))),
        instances: labels,
        rssMbAfterWarmUp: afterWarmUp.rssMb,
        rssMbAtEnd: last.rssMb,
        rssGrowthPercent: growth,
        rssLimitPercent: `${rssLimitPercent(minutes)} (instances 1 and 2)`,
        // Settling shows as growth early and none late; a leak keeps growing: half of it in the second half.
        rssGrowthSecondHalfPercent: secondHalf,
        rssSecondHalfLimitPercent: rssSecondHalfLimitPercent(minutes),
        fdsAfterWarmUp: afterWarmUp.fds,
        fdsAtEnd: last.fds,
        fdsMax: instances.map((_, i) => Math.max(...samples.map((sample) => sample.fds[i] as number))),
      };
      console.info(`[soak] ${JSON.stringify(report, null, 2)}`);
      console.info(
        `[soak] RSS curve, MB every ${SAMPLE_MS / 1000} s from the start (warm-up ends at ${afterWarmUp.atS} s):\n` +
          rssCurve(samples, labels).join('\n'),
      );

      // A clean stop writes every click recorded: SIGTERM all (bounded: a process that does not exit is a
      // finding, reported as such), then count.
      const exits = await Promise.all(
        instances.map((instance) =>
          Promise.race([instance.stop(), sleep(30_000).then(() => 'still running 30 s after SIGTERM')]),
        ),
      );
      const sent = redirects.sent + phones;
      await waitFor(async () => (await countClicks(database.url, org.orgId)).raw >= sent, 15_000, 250);
      const recorded = await countClicks(database.url, org.orgId);
      console.info(
        `[soak] exits ${JSON.stringify(exits)}; clicks sent ${sent}, recorded ${JSON.stringify(recorded)}`,
      );
      // Read once the instances are gone: parsing hundreds of MB would otherwise compete with them.
      if (warmUpSnapshot && endSnapshot) {
        const diff = diffHeaps(summarizeSnapshotFile(warmUpSnapshot), summarizeSnapshotFile(endSnapshot));
        console.info(
          '[soak] heap-snapshot instance, JavaScript heap at warm-up -> at the end, by object type ' +
            `(top 15 growths):\n${formatHeapDiff(diff, 15).join('\n')}`,
        );
      }

      expect(redirects.fiveXx).toBe(0);
      expect(phoneErrors + redirects.failed).toBe(0);
      for (const i of measured) expect(growth[i]).toBeLessThan(rssLimitPercent(minutes));
      for (const i of measured) expect(secondHalf[i]).toBeLessThan(rssSecondHalfLimitPercent(minutes));
      for (const [i, fds] of last.fds.entries())
        expect(fds).toBeLessThanOrEqual((afterWarmUp.fds[i] as number) + 10);
      for (const result of probed) expect(result.ms).toBeLessThan(2000);
      expect(exits).toEqual(instances.map(() => 0));
      expect(recorded).toEqual({ raw: sent, total: sent });
    },
    // Two heap snapshots (and reading them) take minutes on a loaded machine.
    runMs + (heapSnapshots ? 600_000 : 180_000),
  );
});
