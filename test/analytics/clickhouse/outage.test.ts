import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { eventually } from '../../helpers/eventually.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { type HostedOnClickhouse, startHostedOnClickhouse } from './hosted.js';

/**
 * ClickHouse away behaves as the main database away (issue #35, item 4): ANALYTICS_URL points at a proxy
 * in front of the test server, which is cut under redirect traffic. Every redirect still answers 302,
 * /health says analytics "down" (and stays 200), /metrics shows it, analytics reads answer 503
 * `unavailable`, clicks go to the spill. Restored, without a restart: "up" again and every click sent is
 * in ClickHouse exactly once, raw rows and counts alike.
 */
describe.skipIf(clickhouseKind.skipReason !== null)('ClickHouse cut under redirect traffic', () => {
  let ch: TestClickhouse;
  let proxy: TcpProxy;
  let on: HostedOnClickhouse;

  beforeAll(async () => {
    ch = await startClickhouse();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: ch.port });
    on = await startHostedOnClickhouse(ch, { port: proxy.port });
  }, 60_000);
  afterAll(async () => {
    await on?.close();
    await proxy?.close();
    await ch?.stop();
  });

  it('redirects, spills, says so, and writes every click once when it is back', async () => {
    const owner = await on.h.owner('legend');
    const link = (
      await on.h.v1(owner.apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/o' },
      })
    ).json();
    const statuses = new Map<number, number>();
    let sent = 0;
    const visits = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const status = (await on.h.visit(link.slug)).statusCode;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        sent += 1;
        // Spread over several of the writer's ticks, so some batches fail and go to the spill.
        if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };
    const raw = () => on.rows('clicks', owner.orgId);

    await visits(50);
    expect(await eventually(raw, (n) => n === 50)).toBe(50);
    expect((await on.health()).body).toEqual({ ok: true, analytics: 'up' });

    await proxy.cut();
    await visits(300);
    const down = await on.health();
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ ok: false, status: 'degraded', db: 'up', analytics: 'down' });
    expect(await on.gauge('linkhop_analytics_up')).toBe(0);
    const read = await on.h.v1(owner.apiKey, { method: 'GET', url: '/v1/analytics?days=7' });
    expect(read.statusCode, read.body).toBe(503);
    expect(read.json()).toEqual({
      error: 'unavailable',
      message: 'Analytics are unavailable; try again shortly',
      retryAfter: 5,
    });
    expect(read.headers['retry-after']).toBe('5');
    // The export too, before its first byte: a 503, not a 200 cut short.
    const exported = await on.h.v1(owner.apiKey, { method: 'GET', url: '/v1/analytics/export?days=7' });
    expect(exported.statusCode, exported.body).toBe(503);
    expect(exported.json()).toMatchObject({ error: 'unavailable' });
    const spilled = await eventually(
      async () => (await on.gauge('linkhop_click_spill_clicks')) ?? 0,
      (n) => n > 0,
    );
    expect(spilled).toBeGreaterThan(0);
    expect(await raw()).toBe(50);

    proxy.restore();
    await visits(50);
    expect(await eventually(raw, (n) => n >= sent)).toBe(sent);
    expect((await on.health()).body).toEqual({ ok: true, analytics: 'up' });
    expect(await on.gauge('linkhop_analytics_up')).toBe(1);
    expect(
      await eventually(
        async () => (await on.gauge('linkhop_click_spill_clicks')) ?? -1,
        (n) => n === 0,
      ),
    ).toBe(0);
    // Nothing left to write, and still once each: the raw rows and the counts the API reads.
    expect(await raw()).toBe(sent);
    const stats = (await on.h.v1(owner.apiKey, { method: 'GET', url: `/v1/links/${link.id}/stats` })).json();
    expect(stats.total).toBe(sent);
    expect([...statuses]).toEqual([[302, sent]]);
  });

  it('starts and redirects with ClickHouse away; its tables are made when it answers', async () => {
    const away = await startTcpProxy({ host: '127.0.0.1', port: ch.port });
    await away.cut();
    const late = await startHostedOnClickhouse(ch, { port: away.port });
    try {
      const owner = await late.h.owner('legend');
      const link = (
        await late.h.v1(owner.apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://example.com/l' },
        })
      ).json();
      for (let i = 0; i < 20; i++) expect((await late.h.visit(link.slug)).statusCode).toBe(302);
      expect((await late.health()).body).toMatchObject({ db: 'up', analytics: 'down' });
      // Nothing was created: the database does not exist yet.
      const databases = await ch.query('SELECT name FROM system.databases');
      expect(databases.split('\n')).not.toContain(late.database);
      away.restore();
      expect(
        await eventually(
          () => late.rows('clicks', owner.orgId).catch(() => 0),
          (n) => n === 20,
        ),
      ).toBe(20);
      expect((await late.health()).body).toEqual({ ok: true, analytics: 'up' });
    } finally {
      await late.close();
      await away.close();
    }
  });
});
