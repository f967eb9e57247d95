import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yieldingUnitOfWork } from '../../src/store/yielding-work.js';
import { sqliteKind, storeKinds, type TestStore } from '../helpers/stores.js';

/**
 * A background job's unit of work never waits for another connection's SQLite write lock on the event
 * loop: it yields and tries again. Here a second connection holds the lock and gives it back from a timer;
 * a unit of work that waited synchronously would hold the loop, the timer could never fire, and it would
 * fail with SQLITE_BUSY after the busy timeout. The yielding one writes once the lock is free, exactly once.
 */
describe('a yielding unit of work on SQLite', () => {
  let testStore: TestStore;
  let other: SQLite.Database;

  beforeAll(async () => {
    testStore = await sqliteKind.create();
    other = new SQLite(testStore.url.slice('sqlite:'.length));
    const now = new Date().toISOString();
    await testStore.store.db
      .insertInto('organizations')
      .values({ id: 'org-1', name: 'Shop', tier: 'legend', created_at: now })
      .execute();
  });
  afterAll(async () => {
    other?.close();
    await testStore?.dispose();
  });

  it('waits on the timer while another connection writes, then writes once and restores the busy timeout', async () => {
    const { db, dialect } = testStore.store;
    other.exec("begin immediate; update organizations set name = 'Held' where id = 'org-1'");
    let released = false;
    setTimeout(() => {
      other.exec('commit');
      released = true;
    }, 150);
    let runs = 0;
    const answer = await yieldingUnitOfWork(
      db,
      dialect,
    )(async (trx) => {
      runs++;
      await trx.updateTable('organizations').set({ tier: 'sidekick' }).where('id', '=', 'org-1').execute();
      await trx
        .insertInto('health_hosts')
        .values({ host: `run-${runs}.example`, claimed_until: null, claim_token: null })
        .execute();
      return runs;
    });
    expect(released).toBe(true);
    // It was refused while the lock was held, and tried again: only the attempt that committed wrote.
    expect(runs).toBeGreaterThan(1);
    expect(answer).toBe(runs);
    const hosts = await db.selectFrom('health_hosts').select('host').execute();
    expect(hosts).toEqual([{ host: `run-${runs}.example` }]);
    const org = await db.selectFrom('organizations').select(['name', 'tier']).executeTakeFirstOrThrow();
    expect(org).toEqual({ name: 'Held', tier: 'sidekick' });
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
    expect(rows[0]?.timeout).toBe(5000);
  });

  it('not durable: its own commits skip the fsync, and the connection is FULL again after', async () => {
    const { db, dialect } = testStore.store;
    const level = async (executor: typeof db) =>
      (await sql<{ synchronous: number }>`pragma synchronous`.execute(executor)).rows[0]?.synchronous;
    let inside: number | undefined;
    await yieldingUnitOfWork(db, dialect, { durable: false })(async (trx) => {
      inside = await level(trx);
      await trx
        .insertInto('health_hosts')
        .values({ host: 'relaxed.example', claimed_until: null, claim_token: null })
        .execute();
    });
    // 1 is NORMAL, 2 is FULL: every other write of the connection keeps the fsync.
    expect(inside).toBe(1);
    expect(await level(db)).toBe(2);
    let durable: number | undefined;
    await yieldingUnitOfWork(
      db,
      dialect,
    )(async (trx) => {
      durable = await level(trx);
    });
    expect(durable).toBe(2);
  });

  it('an error that is not a busy lock is the caller’s at once, rolled back', async () => {
    const { db, dialect } = testStore.store;
    let runs = 0;
    const failed = await yieldingUnitOfWork(
      db,
      dialect,
    )(async (trx) => {
      runs++;
      await trx
        .insertInto('health_hosts')
        .values({ host: 'rolled.example', claimed_until: null, claim_token: null })
        .execute();
      throw new Error('the job changed its mind');
    }).catch((error: Error) => error.message);
    expect(failed).toBe('the job changed its mind');
    expect(runs).toBe(1);
    expect(
      await db.selectFrom('health_hosts').select('host').where('host', '=', 'rolled.example').execute(),
    ).toEqual([]);
  });
});

describe.each(storeKinds.filter((kind) => kind !== sqliteKind))(
  'a yielding unit of work on $name',
  (kind) => {
    it.skipIf(kind.skipReason !== null)('is a plain transaction', async () => {
      const testStore = await kind.create();
      try {
        const { db, dialect } = testStore.store;
        const answer = await yieldingUnitOfWork(
          db,
          dialect,
        )(async (trx) => {
          await trx
            .insertInto('health_hosts')
            .values({ host: 'pg.example', claimed_until: null, claim_token: null })
            .execute();
          return 'done';
        });
        expect(answer).toBe('done');
        expect(await db.selectFrom('health_hosts').select('host').execute()).toEqual([
          { host: 'pg.example' },
        ]);
      } finally {
        await testStore.dispose();
      }
    });
  },
);
