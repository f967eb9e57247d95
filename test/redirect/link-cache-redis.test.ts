import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHostedLinkCache,
  type HostedLinkCache,
  type HostedLinkEntry,
} from '../../src/redirect/link-cache.js';
import { redisClientOptions } from '../../src/store/redis-clients.js';
import { redisSkipReason, redisUrl } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

/**
 * Only one instance loses Redis (a partition between it and Redis): the others keep their connection, so
 * they have nothing to drop on reconnect. The invalidations it could not publish go out when it is back.
 */
describe.skipIf(redisSkipReason !== null)('link cache invalidations across a one-sided Redis outage', () => {
  let proxy: TcpProxy;
  const clients: Redis[] = [];
  let cut: HostedLinkCache;
  let kept: HostedLinkCache;

  const client = (url: string) => {
    const redis = new Redis(url, redisClientOptions);
    redis.on('error', () => undefined);
    clients.push(redis);
    return redis;
  };
  const ready = async (redis: Redis) => {
    for (let i = 0; i < 100 && redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
  };
  const options = { capacity: 100, ttlMs: 60_000, customHosts: [] };

  beforeAll(async () => {
    const target = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const publisher = client(throughProxy(redisUrl ?? '', proxy));
    const direct = [client(redisUrl ?? ''), client(redisUrl ?? ''), client(redisUrl ?? '')];
    await Promise.all([publisher, ...direct].map(ready));
    cut = await createHostedLinkCache({ ...options, redis: { publisher, subscriber: direct[0] as Redis } });
    kept = await createHostedLinkCache({
      ...options,
      redis: { publisher: direct[1] as Redis, subscriber: direct[2] as Redis },
    });
  });
  afterAll(async () => {
    await cut?.close();
    await kept?.close();
    for (const redis of clients) redis.disconnect();
    await proxy?.close();
  });

  it('an invalidation made while this instance is cut off reaches the others once it is back', async () => {
    const slug = `c${randomBytes(6).toString('hex')}`;
    kept.set({ host: '', slug } as HostedLinkEntry);
    await proxy.cut();
    const publisher = clients[0] as Redis;
    for (let i = 0; i < 100 && publisher.status === 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
    cut.invalidate('', slug);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(kept.get('', slug)).toBeDefined();

    proxy.restore();
    for (let i = 0; i < 150 && kept.get('', slug); i++) await new Promise((r) => setTimeout(r, 20));
    expect(kept.get('', slug)).toBeUndefined();
  });
});

/**
 * The subscriber itself is cut: on reconnect the instance drops its entries and reads the custom hostnames
 * again. A visit that finds its entry gone must already find a hostname first used during the cut, so the
 * hostnames are read before the entries go (a slow read once let a branded visit 404 in between).
 */
describe.skipIf(redisSkipReason !== null)('link cache reconnect of its own subscriber', () => {
  it('knows the hostnames first used during the cut by the time its stale entries are dropped', async () => {
    const target = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const publisher = new Redis(redisUrl ?? '', redisClientOptions);
    const subscriber = new Redis(throughProxy(redisUrl ?? '', proxy), redisClientOptions);
    for (const redis of [publisher, subscriber]) redis.on('error', () => undefined);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let i = 0; i < 100 && subscriber.status !== 'ready'; i++) await sleep(20);
    let hostsInStore = ['old.example'];
    const cache = await createHostedLinkCache({
      capacity: 100,
      ttlMs: 60_000,
      customHosts: hostsInStore,
      redis: { publisher, subscriber },
      // A slow store: the read takes longer than the reconnect.
      loadCustomHosts: async () => {
        await sleep(300);
        return hostsInStore;
      },
    });
    try {
      const slug = `r${randomBytes(6).toString('hex')}`;
      cache.set({ host: '', slug } as HostedLinkEntry);
      await proxy.cut();
      for (let i = 0; i < 100 && subscriber.status === 'ready'; i++) await sleep(20);
      hostsInStore = ['old.example', 'new.example'];
      expect(cache.lookupHost('new.example')).toBe('');

      proxy.restore();
      for (let i = 0; i < 250 && cache.getStale('', slug); i++) await sleep(10);
      expect(cache.getStale('', slug)).toBeUndefined();
      expect(cache.lookupHost('new.example')).toBe('new.example');
      expect(cache.lookupHost('old.example:443')).toBe('old.example');
    } finally {
      await cache.close();
      publisher.disconnect();
      subscriber.disconnect();
      await proxy.close();
    }
  });
});
