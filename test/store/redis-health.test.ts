import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRedisClients, type RedisClients } from '../../src/store/redis-clients.js';
import { REDIS_BACK_MESSAGE, REDIS_LOST_MESSAGE } from '../../src/store/redis-health.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

/** The Redis health tracker over real clients, with Redis reached through a TCP proxy that can cut it. */
describe.skipIf(redisSkipReason !== null)('Redis health tracker', () => {
  let proxy: TcpProxy | undefined;
  let clients: RedisClients | undefined;
  afterEach(async () => {
    await clients?.close();
    await proxy?.close();
    vi.restoreAllMocks();
  });

  const logger = () => {
    const lines: { level: string; message: string }[] = [];
    return {
      lines,
      warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
      info: (_: object, message: string) => lines.push({ level: 'info', message }),
    };
  };
  const until = async (ok: () => boolean, ms = 3_000) => {
    for (const started = Date.now(); !ok() && Date.now() - started < ms; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const startProxy = async () => {
    const target = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
    return startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  };

  it('logs one line when Redis is lost and one when it is back, however many reconnects fail between', async () => {
    const unhandled = vi.spyOn(console, 'error');
    proxy = await startProxy();
    const log = logger();
    clients = await openRedisClients(throughProxy(redisUrl ?? '', proxy), log);
    expect(clients.health.up).toBe(true);
    expect(log.lines).toEqual([]);

    await proxy.cut(1_500);
    await until(() => !clients?.health.up);
    expect(clients.health.up).toBe(false);
    // While cut, commands fail at once: nothing waits in a queue.
    const started = Date.now();
    await expect(clients.publisher.get('linkhop:test:none')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1_000);

    await until(() => clients?.health.up === true, 4_000);
    expect(clients.health.up).toBe(true);
    expect(log.lines).toEqual([
      { level: 'warn', message: REDIS_LOST_MESSAGE },
      { level: 'info', message: REDIS_BACK_MESSAGE },
    ]);
    expect(await clients.publisher.ping()).toBe('PONG');
    // Every client has an error listener: ioredis never printed "Unhandled error event".
    expect(unhandled.mock.calls.flat().join(' ')).not.toMatch(/Unhandled error event/);
  });

  it('starts without Redis (logged once as lost) and goes up when Redis arrives', async () => {
    proxy = await startProxy();
    await proxy.cut();
    const log = logger();
    const started = Date.now();
    clients = await openRedisClients(throughProxy(redisUrl ?? '', proxy), log, 300);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(clients.health.up).toBe(false);
    proxy.restore();
    await until(() => clients?.health.up === true, 4_000);
    expect(clients.health.up).toBe(true);
    expect(log.lines.map((line) => line.message)).toEqual([REDIS_LOST_MESSAGE, REDIS_BACK_MESSAGE]);
  });

  it('says nothing when its clients are closed on purpose', async () => {
    proxy = await startProxy();
    const log = logger();
    clients = await openRedisClients(throughProxy(redisUrl ?? '', proxy), log);
    await clients.close();
    clients = undefined;
    expect(log.lines).toEqual([]);
  });
});
