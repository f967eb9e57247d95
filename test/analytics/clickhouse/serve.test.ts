import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import {
  createLinks,
  createOrg,
  http,
  type Instance,
  saveLogs,
  sleep,
  startInstance,
  startTraffic,
  waitFor,
} from '../../resilience/harness.js';

/**
 * `linkhop serve` (the built CLI) with ANALYTICS_URL: clicks are written by the writer thread through its
 * own ClickHouse client. ClickHouse is cut through a proxy under traffic and restored: every visit is
 * answered 302, /health and /metrics follow the thread's failed and resumed writes, and after a clean
 * stop ClickHouse holds every click sent, once.
 */
describe.skipIf(clickhouseKind.skipReason !== null)('linkhop serve writing clicks to ClickHouse', () => {
  let ch: TestClickhouse;
  let proxy: TcpProxy;
  const dir = mkdtempSync(join(tmpdir(), 'linkhop-ch-serve-'));
  const databaseUrl = `sqlite:${join(dir, 'main.db')}`;
  const started: Instance[] = [];

  beforeAll(async () => {
    ch = await startClickhouse();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: ch.port });
  }, 60_000);
  afterAll(async () => {
    saveLogs(started, 'clickhouse-serve');
    for (const instance of started) if (instance.exit === null) await instance.kill();
    await proxy?.close();
    await ch?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps redirecting through a cut, and writes each click once from the thread', async () => {
    const database = `t_${Math.random().toString(16).slice(2, 14)}`;
    const org = createOrg(databaseUrl);
    const instance = await startInstance({
      databaseUrl,
      env: { ANALYTICS_URL: ch.urlFor(database).replace(`:${ch.port}/`, `:${proxy.port}/`) },
    });
    started.push(instance);
    expect(instance.output()).toMatch(/clicks are written to ClickHouse on their own thread/);
    const slugs = await createLinks(instance, org.apiKey, 3);
    const raw = async () =>
      Number(
        (
          await ch
            .query(`SELECT count() FROM ${database}.clicks WHERE org_id = '${org.orgId}'`)
            .catch(() => '0')
        ).trim(),
      );
    const health = async () => JSON.parse((await http(`${instance.url}/health`)).body);
    const gauge = async (name: string) =>
      Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await http(`${instance.url}/metrics`)).body)?.[1]);

    const traffic = startTraffic([instance], slugs, { concurrency: 4 });
    await waitFor(async () => (await raw()) > 0, 10_000);
    expect((await health()).analytics).toBe('up');

    await proxy.cut();
    await sleep(1500);
    expect(await health()).toMatchObject({ ok: false, db: 'up', analytics: 'down' });
    await waitFor(async () => (await gauge('linkhop_analytics_up')) === 0, 10_000);
    await waitFor(async () => (await gauge('linkhop_click_spill_clicks')) > 0, 10_000);

    proxy.restore();
    await waitFor(async () => (await gauge('linkhop_analytics_up')) === 1, 15_000);
    const counts = await traffic.stop();
    expect(await instance.stop()).toBe(0);

    expect(counts.failed).toBe(0);
    expect(counts.byStatus).toEqual({ 302: counts.sent });
    expect(await raw()).toBe(counts.sent);
  });
});
