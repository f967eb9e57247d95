import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  saveLogs,
  sleep,
  startInstance,
  startTraffic,
  waitFor,
} from './harness.js';

/**
 * What a process ending costs in clicks, on PostgreSQL with the click writer thread.
 *
 * kill -9: the clicks the thread had not committed are lost. From the code (click-thread.ts,
 * click-buffer.ts): those still in the shared ring (the thread drains it every 50 ms), those in the
 * thread's batch buffer (written every 500 ms, or at 1,000 rows), and the batch being committed: at
 * most about 550 ms of clicks plus one batch in flight (at most 5,000 rows when behind). While the
 * database is away: one tick (500 ms) of clicks plus the ring's 50 ms, and until the first tick after the
 * cut the failed batch; the rest is in the spill and is replayed by the next start. SIGTERM loses none, even with the database away: what
 * the database will not take goes to the spill folder and the next start writes it, exactly once.
 */
const HUMAN = { host: 'lnk.example', 'user-agent': UA.desktopChrome };

describe.skipIf(postgresKind.skipReason !== null)('a process ending under traffic', () => {
  let database: FaultDatabase;
  let proxy: TcpProxy;
  let org: { orgId: string; apiKey: string };
  let slugs: string[];
  const spillDir = mkdtempSync(join(tmpdir(), 'linkhop-spill-kill-'));
  const started: Instance[] = [];
  const start = async (databaseUrl: string) => {
    const instance = await startInstance({ databaseUrl, spillDir });
    started.push(instance);
    return instance;
  };

  beforeAll(async () => {
    database = await createFaultDatabase();
    const direct = new URL(database.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    org = createOrg(database.url);
    const first = await start(database.url);
    slugs = await createLinks(first, org.apiKey, 4);
    await first.stop();
  }, 120_000);

  afterAll(async () => {
    saveLogs(started, 'hard-kill');
    await Promise.all(started.map((instance) => instance.kill()));
    await proxy?.close();
    await database?.drop();
    rmSync(spillDir, { recursive: true, force: true });
  });

  const recorded = async () => (await countClicks(database.url, org.orgId)).raw;
  /**
   * Waits until the new process's writer thread has committed something: what a kill loses is measured
   * from a pipeline in its steady state, not from a thread still starting on a loaded machine.
   */
  const flowing = async (before: number) => {
    expect(await waitFor(async () => (await recorded()) > before, 30_000, 100)).not.toBeNull();
  };
  const segments = () => readdirSync(spillDir).filter((file) => file.endsWith('.seg'));

  it('kill -9 during a batch loses at most the clicks of the last flush interval and the batch in flight', async () => {
    const before = await recorded();
    const instance = await start(database.url);
    const traffic = startTraffic([instance], slugs, { concurrency: 4, pauseMs: 2 });
    await flowing(before);
    await sleep(1200);
    const killedAt = performance.now();
    await instance.kill();
    const counts = await traffic.stop();
    const answered = counts.answeredAt.filter((at) => at <= killedAt).length;
    // Those answered in the last 1.5 s before the kill: the code's ~0.55 s plus a batch in flight, with
    // room for a loaded machine.
    const lastSecond = counts.answeredAt.filter((at) => at <= killedAt && at > killedAt - 1500).length;
    const lost = answered - ((await recorded()) - before);
    console.info('[hard-kill]', JSON.stringify({ answered, lastSecond, lost }));
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost).toBeLessThanOrEqual(lastSecond);
  }, 90_000);

  it('kill -9 while the database is away loses about one tick of clicks; the spill survives it', async () => {
    const before = await recorded();
    const instance = await start(throughProxy(database.url, proxy));
    const traffic = startTraffic([instance], slugs, { concurrency: 4, pauseMs: 2 });
    await flowing(before);
    const spilledBefore = segments().length;
    await proxy.cut();
    // Spilling in its steady state: a segment sealed since the cut, then a little more traffic. A segment
    // seals at 10,000 clicks, 12 to 20 s of this traffic here, longer on a loaded machine.
    expect(await waitFor(async () => segments().length > spilledBefore, 60_000, 50)).not.toBeNull();
    await sleep(1000);
    const killedAt = performance.now();
    await instance.kill();
    const counts = await traffic.stop();
    proxy.restore();
    const next = await start(throughProxy(database.url, proxy));
    const answered = counts.answeredAt.filter((at) => at <= killedAt).length;
    await waitFor(async () => (await recorded()) - before >= answered, 20_000);
    await sleep(700);
    const lost = answered - ((await recorded()) - before);
    // One tick (500 ms) and the ring's 50 ms, with room for a loaded machine.
    const window = (end: number) => counts.answeredAt.filter((at) => at <= end && at > end - 1500).length;
    const bound = window(killedAt);
    console.info('[hard-kill-away]', JSON.stringify({ answered, lost, bound }));
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost).toBeLessThanOrEqual(bound);
    await next.stop();
  }, 150_000);

  it('SIGTERM under traffic loses none', async () => {
    const before = await recorded();
    const instance = await start(database.url);
    const traffic = startTraffic([instance], slugs, { concurrency: 4, pauseMs: 2 });
    await sleep(1500);
    expect(await instance.stop()).toBe(0);
    const counts = await traffic.stop();
    expect(counts.fiveXx).toBe(0);
    expect((await recorded()) - before).toBe(counts.sent);
  }, 60_000);

  it('SIGTERM while the database is away: clicks wait in the spill and the next start writes them once', async () => {
    const before = await recorded();
    const instance = await start(throughProxy(database.url, proxy));
    // Every link served once before the cut: a fresh instance that never loaded a link answers it 503
    // while the database is away (never 404), which is not what this test is about. Traffic alone did
    // not always reach every link in time on a loaded machine (89 and 105 answers of 503 in two runs).
    for (const slug of slugs) {
      const warm = await http(`${instance.url}/${slug}`, { headers: HUMAN });
      expect(warm.status).toBe(302);
    }
    const traffic = startTraffic([instance], slugs, { concurrency: 4, pauseMs: 2 });
    await sleep(700);
    await proxy.cut();
    await sleep(1500);
    expect(await instance.stop()).toBe(0);
    const counts = await traffic.stop();
    expect(counts.fiveXx, `answers by status: ${JSON.stringify(counts.byStatus)}`).toBe(0);
    const spilled = segments();
    expect(spilled.length).toBeGreaterThan(0);
    proxy.restore();

    // The next start (same spill folder) replays them: every click once, the folder emptied.
    const next = await start(throughProxy(database.url, proxy));
    const sent = counts.sent + slugs.length;
    const took = await waitFor(async () => (await recorded()) - before >= sent, 30_000);
    await sleep(700);
    console.info('[sigterm-away]', JSON.stringify({ sent, segments: spilled.length, replayMs: took }));
    expect((await recorded()) - before).toBe(sent);
    expect(segments()).toEqual([]);
    await next.stop();
  }, 90_000);
});
