import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationKey } from '../../src/health/key.js';
import { createHealthRepo } from '../../src/health/repo.js';
import { createHealthChecker } from '../../src/health/service.js';
import { createGuardedFetcher } from '../../src/net/guarded-fetch.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';

/**
 * The running checker's loop, not a test's drain: most hosts hold one or two destinations, so most passes
 * check far fewer destinations than a pass could. Such a pass must still go round again at once while
 * hosts are due; waiting for the poll after each would check 8 hosts every 30 s (23,000 a day), and a
 * quiet destination would go days unchecked.
 */

const HOSTS = 30;

describe('the destination checker, started', () => {
  let testStore: TestStore;
  let server: Server;
  let port: number;
  const asked = new Set<string>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.add(`${req.headers.host}${req.url}`);
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    testStore = await sqliteKind.create();
    const { db } = testStore.store;
    const now = new Date().toISOString();
    const orgId = randomUUID();
    await db
      .insertInto('organizations')
      .values({ id: orgId, name: 'Shop', tier: 'legend', created_at: now })
      .execute();
    for (let i = 0; i < HOSTS; i++) {
      // One destination per host, each on a host of its own (resolved to loopback by the fetcher's seam).
      const host = `shop${i}.example:${port}`;
      const url = `http://${host}/item`;
      const key = destinationKey(url);
      await db.insertInto('destinations').values({ id: key, url, host, next_check_at: now }).execute();
      await db
        .insertInto('links')
        .values({
          id: randomUUID(),
          org_id: orgId,
          host: '',
          slug: `s${i}`,
          destination: url,
          destination_key: key,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
  });
  afterAll(async () => {
    await testStore?.dispose();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  it('goes round again while hosts are due, however few destinations each pass found', async () => {
    const fetcher = createGuardedFetcher({ allowPrivate: true, lookup: async () => ['127.0.0.1'] });
    const errors: unknown[] = [];
    const checker = createHealthChecker({
      repo: createHealthRepo(testStore.store.db, testStore.store.dialect),
      fetcher,
      signals: [],
      now: Date.now,
      token: randomUUID,
      describe: async () => null,
      events: { emitIn: async () => 0, nudge() {} },
      invalidate() {},
      onError: (error) => errors.push(error),
      // An hour: only going round again at once can check every host within this test.
      intervalMs: 3_600_000,
    });
    checker.start();
    try {
      for (let i = 0; i < 200 && asked.size < HOSTS; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await checker.stop();
      await fetcher.close();
    }
    expect(errors).toEqual([]);
    expect(asked.size).toBe(HOSTS);
    const unchecked = await testStore.store.db
      .selectFrom('destinations')
      .select('id')
      .where('checked_at', 'is', null)
      .execute();
    expect(unchecked).toEqual([]);
  });
});

describe('due hosts', () => {
  it('finds hosts past one that holds hundreds of due destinations, oldest due first', async () => {
    const testStore = await sqliteKind.create();
    try {
      const { db } = testStore.store;
      const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
      const rows = [
        // The busiest host's 300 destinations are due first, and would fill any window alone.
        ...Array.from({ length: 300 }, (_, i) => ({
          url: `https://big.example/p${i}`,
          host: 'big.example',
          due: 0,
        })),
        ...Array.from({ length: 12 }, (_, i) => ({
          url: `https://s${i}.example/`,
          host: `s${i}.example`,
          due: 1 + i,
        })),
      ];
      for (const row of rows)
        await db
          .insertInto('destinations')
          .values({ id: destinationKey(row.url), url: row.url, host: row.host, next_check_at: at(row.due) })
          .execute();
      // A host another instance holds is skipped.
      await db
        .insertInto('health_hosts')
        .values({ host: 's0.example', claim_token: 'other', claimed_until: at(60) })
        .execute();
      const hosts = await createHealthRepo(db, testStore.store.dialect).dueHosts(at(30), 8);
      expect(hosts).toEqual(['big.example', ...Array.from({ length: 7 }, (_, i) => `s${i + 1}.example`)]);
    } finally {
      await testStore.dispose();
    }
  });
});
