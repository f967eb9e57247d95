import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRedisClients, type RedisClients } from '../../src/store/redis-clients.js';
import { REDIS_BACK_MESSAGE, REDIS_LOST_MESSAGE } from '../../src/store/redis-health.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

/** A proxy that can go silent: connections stay open but nothing passes, as on a path that drops packets. */
async function startSilentProxy(target: URL) {
  let silent = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => silent || upstream.write(chunk));
    upstream.on('data', (chunk) => silent || client.write(chunk));
    const drop = () => {
      for (const socket of [client, upstream]) {
        socket.destroy();
        sockets.delete(socket);
      }
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    silence(on: boolean) {
      silent = on;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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

  it('notices a Redis that stops answering without closing the connection, and its return', async () => {
    const silent = await startSilentProxy(new URL(redisUrl ?? 'redis://127.0.0.1:6379'));
    try {
      const log = logger();
      clients = await openRedisClients(silent.url, log);
      expect(clients.health.up).toBe(true);
      silent.silence(true);
      // The heartbeat's unanswered ping closes the connection: no reset ever arrives on such a path.
      await until(() => !clients?.health.up, 8_000);
      expect(clients.health.up).toBe(false);
      silent.silence(false);
      await until(() => clients?.health.up === true, 5_000);
      expect(clients.health.up).toBe(true);
      expect(log.lines.map((line) => line.message)).toEqual([REDIS_LOST_MESSAGE, REDIS_BACK_MESSAGE]);
    } finally {
      await clients?.close();
      clients = undefined;
      await silent.close();
    }
  }, 20_000);

  it('says nothing when its clients are closed on purpose', async () => {
    proxy = await startProxy();
    const log = logger();
    clients = await openRedisClients(throughProxy(redisUrl ?? '', proxy), log);
    await clients.close();
    clients = undefined;
    expect(log.lines).toEqual([]);
  });
});
