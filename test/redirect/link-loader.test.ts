import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { RedirectRecord } from '../../src/links/repo.js';
import { loadPlatformTable } from '../../src/platform-table.js';
import { createHostedLinkCache, RECORD_PREFIX } from '../../src/redirect/link-cache.js';
import { createLinkLoader, LinkLookupFailed, STALE_RETRY_MS } from '../../src/redirect/link-loader.js';
import { connectRedis, redisSkipReason } from '../helpers/redis.js';

/**
 * Loading a hosted link when the database may fail: a fresh answer wins while it answers; when it fails, the
 * expired entry this instance served before, else the Redis copy another instance wrote; else the lookup
 * failed (503), never "not found".
 */

const TTL = 60_000;
const table = loadPlatformTable(undefined);

function record(slug: string, destination: string): RedirectRecord {
  return {
    id: `id-${slug}`,
    orgId: 'org-1',
    host: '',
    slug,
    destination,
    platformKey: null,
    archivedAt: null,
    readOnly: false,
    utm: null,
    routing: null,
    ab: null,
    sched: null,
    passwordHash: null,
    folderId: null,
    captureEmails: false,
    tags: [],
    pixelIds: [],
    expiresAt: null,
    expiredUrl: null,
    maxClicks: null,
    clickCount: 0,
    expiredAt: null,
    publicStats: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    tier: 'hero',
    orgName: 'Org',
    pixels: [],
    preview: null,
  };
}

/** A stand-in for the links repo: a map of slugs, and a switch that makes every read fail like a cut pool. */
function database() {
  const rows = new Map<string, RedirectRecord>();
  const state = { down: false, reads: 0 };
  return {
    rows,
    state,
    links: {
      async findForRedirect(_host: string, slug: string) {
        state.reads += 1;
        if (state.down) throw Object.assign(new Error('Connection terminated unexpectedly'), {});
        return rows.get(slug);
      },
    },
  };
}

const destinationOf = (entry: { link: { fallback: { location: string } } } | undefined) =>
  entry?.link.fallback.location;

describe('link loader without Redis', () => {
  it('a fresh database answer wins; when the reload fails the expired entry is served, then retried', async () => {
    let now = 1_000_000;
    const db = database();
    const cache = await createHostedLinkCache({ capacity: 100, ttlMs: TTL, customHosts: [], now: () => now });
    const load = createLinkLoader({
      links: db.links,
      table,
      cache,
      flagsOff: new Set(),
      baseUrl: 'https://lnk.example',
    });
    db.rows.set('a', record('a', 'https://example.com/v1'));
    expect(destinationOf(await load('', 'a'))).toBe('https://example.com/v1');

    // Expired, the database up with a new destination: the fresh answer.
    db.rows.set('a', record('a', 'https://example.com/v2'));
    now += TTL + 1;
    expect(cache.get('', 'a')).toBeUndefined();
    expect(destinationOf(await load('', 'a'))).toBe('https://example.com/v2');

    // Expired again, the database down: the last entry, exactly as before, and no read per visit.
    now += TTL + 1;
    db.state.down = true;
    expect(destinationOf(await load('', 'a'))).toBe('https://example.com/v2');
    const reads = db.state.reads;
    expect(destinationOf(cache.get('', 'a'))).toBe('https://example.com/v2');
    expect(destinationOf(await load('', 'a'))).toBe('https://example.com/v2');
    expect(db.state.reads).toBe(reads);

    // Back: after the short retry period the database is asked again.
    db.state.down = false;
    db.rows.set('a', record('a', 'https://example.com/v3'));
    now += STALE_RETRY_MS + 1;
    expect(destinationOf(await load('', 'a'))).toBe('https://example.com/v3');
  });

  it('an unknown slug while the database fails is a failed lookup, never "not found"; a real miss when it answers', async () => {
    const db = database();
    const cache = await createHostedLinkCache({ capacity: 100, ttlMs: TTL, customHosts: [] });
    const load = createLinkLoader({
      links: db.links,
      table,
      cache,
      flagsOff: new Set(),
      baseUrl: 'https://lnk.example',
    });
    db.state.down = true;
    await expect(load('', 'nope')).rejects.toBeInstanceOf(LinkLookupFailed);
    db.state.down = false;
    expect(await load('', 'nope')).toBeUndefined();
  });

  it('an invalidated link is not served stale: its entry is gone', async () => {
    let now = 0;
    const db = database();
    const cache = await createHostedLinkCache({ capacity: 100, ttlMs: TTL, customHosts: [], now: () => now });
    const load = createLinkLoader({
      links: db.links,
      table,
      cache,
      flagsOff: new Set(),
      baseUrl: 'https://lnk.example',
    });
    db.rows.set('b', record('b', 'https://example.com/b'));
    await load('', 'b');
    cache.invalidate('', 'b');
    now += TTL + 1;
    db.state.down = true;
    await expect(load('', 'b')).rejects.toBeInstanceOf(LinkLookupFailed);
  });
});

describe.skipIf(redisSkipReason !== null)('link loader with the Redis copy', () => {
  const clients: Redis[] = [];
  const redis = () => {
    const publisher = connectRedis();
    const subscriber = connectRedis();
    clients.push(publisher, subscriber);
    return { publisher, subscriber };
  };
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => undefined)));
  });

  it('another instance serves a link it never loaded from the copy while the database fails; invalidate removes it', async () => {
    const slug = `r${randomUUID().slice(0, 8)}`;
    const db = database();
    db.rows.set(slug, record(slug, 'https://example.com/copied'));
    const deps = { links: db.links, table, flagsOff: new Set<string>(), baseUrl: 'https://lnk.example' };
    const first = await createHostedLinkCache({ capacity: 100, ttlMs: TTL, customHosts: [], redis: redis() });
    const second = await createHostedLinkCache({
      capacity: 100,
      ttlMs: TTL,
      customHosts: [],
      redis: redis(),
    });
    await createLinkLoader({ ...deps, cache: first })('', slug);
    // The copy is written fire-and-forget: give it a moment.
    const check = connectRedis();
    clients.push(check);
    for (let i = 0; i < 50 && !(await check.exists(RECORD_PREFIX + slug)); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await check.ttl(RECORD_PREFIX + slug)).toBeGreaterThan(0);

    db.state.down = true;
    const served = await createLinkLoader({ ...deps, cache: second })('', slug);
    expect(destinationOf(served)).toBe('https://example.com/copied');

    first.invalidate('', slug);
    for (let i = 0; i < 50 && (await check.exists(RECORD_PREFIX + slug)); i++)
      await new Promise((r) => setTimeout(r, 10));
    const third = await createHostedLinkCache({ capacity: 100, ttlMs: TTL, customHosts: [], redis: redis() });
    await expect(createLinkLoader({ ...deps, cache: third })('', slug)).rejects.toBeInstanceOf(
      LinkLookupFailed,
    );
    await Promise.all([first.close(), second.close(), third.close()]);
  });

  it('Redis not answering costs at most about 250 ms on the way to the 503', async () => {
    // A port that accepts and never answers: the Redis client waits, the loader does not.
    const sockets: Socket[] = [];
    const silentServer = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
    const port = (silentServer.address() as { port: number }).port;
    const publisher = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, lazyConnect: true });
    clients.push(publisher);
    const cache = await createHostedLinkCache({
      capacity: 10,
      ttlMs: TTL,
      customHosts: [],
      redis: { publisher, subscriber: redis().subscriber },
    });
    const db = database();
    db.state.down = true;
    const load = createLinkLoader({
      links: db.links,
      table,
      cache,
      flagsOff: new Set(),
      baseUrl: 'https://lnk.example',
    });
    const started = performance.now();
    await expect(load('', 'silent')).rejects.toBeInstanceOf(LinkLookupFailed);
    expect(performance.now() - started).toBeLessThan(1000);
    publisher.disconnect();
    await cache.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silentServer.close(resolve));
  });
});
