import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAppError } from '../../src/http/errors.js';
import { openStore, type Store } from '../../src/store/database.js';
import { isConnectionError } from '../../src/store/db-errors.js';
import { postgresKind, type TestStore } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';

/**
 * The PostgreSQL pool when its connections are cut: no error event is left unhandled (an idle client's,
 * or one inside a transaction), callers get an error that maps to 503 `unavailable` quickly, the health
 * tracker follows, and the next query after the database is back succeeds without a restart.
 */
describe.skipIf(postgresKind.skipReason !== null)('PostgreSQL pool with its connections cut', () => {
  let testStore: TestStore;
  let proxy: TcpProxy;
  let store: Store;
  const poolErrors: Error[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (error: unknown) => unhandled.push(error);

  beforeAll(async () => {
    testStore = await postgresKind.create();
    const direct = new URL(testStore.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    store = openStore(throughProxy(testStore.url, proxy), {
      ...(testStore.schema ? { schema: testStore.schema } : {}),
      maxConnections: 4,
      statementTimeoutMs: 300,
      onError: (error) => poolErrors.push(error),
    });
    process.on('uncaughtException', onUnhandled);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUnhandled);
    await store?.close();
    await proxy?.close();
    await testStore?.dispose();
  });

  const ping = () => sql<{ one: number }>`select 1 as one`.execute(store.db);

  it('idle clients and a client inside a transaction lose their connection: no crash, health down, then back', async () => {
    // Four idle clients in the pool, and one more held inside an open transaction.
    await Promise.all([ping(), ping(), ping(), ping()]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = store.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await held;
        await sql`select 2`.execute(trx);
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.health.up).toBe(true);

    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const failed = await transaction;
    expect(failed).toBeInstanceOf(Error);
    expect(isConnectionError(failed)).toBe(true);
    expect(poolErrors.length).toBeGreaterThan(0);
    expect(store.health.up).toBe(false);

    // While down: a query fails fast with an error the edge maps to 503 unavailable with retryAfter.
    const started = performance.now();
    const error = await ping().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(performance.now() - started).toBeLessThan(1500);
    expect(toAppError(error).toBody()).toMatchObject({ error: 'unavailable', retryAfter: 5 });
    expect(toAppError(error).status).toBe(503);

    proxy.restore();
    const { rows } = await ping();
    expect(rows[0]?.one).toBe(1);
    expect(store.health.up).toBe(true);
    expect(unhandled).toEqual([]);
  });

  it('a query that waits past the timeout for a busy pool gets 503, and health stays up', async () => {
    const busy = openStore(testStore.url, {
      ...(testStore.schema ? { schema: testStore.schema } : {}),
      maxConnections: 1,
    });
    try {
      const holding = sql`select pg_sleep(1.5)`.execute(busy.db);
      const waited = await sql`select 1`.execute(busy.db).then(
        () => null,
        (caught: unknown) => caught,
      );
      await holding;
      expect((waited as Error).message).toBe('timeout exceeded when trying to connect');
      expect(toAppError(waited).status).toBe(503);
      // The database answered all along: a full pool is load, not an outage, and logs no "unreachable".
      expect(busy.health.up).toBe(true);
    } finally {
      await busy.close();
    }
  });

  it('a statement that runs past the serving timeout is cancelled and maps to 503, not 500', async () => {
    const error = await sql`select pg_sleep(2)`.execute(store.db).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect((error as { code?: string }).code).toBe('57014');
    expect(toAppError(error).code).toBe('unavailable');
    // A bug is still a 500: only connection-class failures are "unavailable".
    expect(toAppError(new Error('column "nope" does not exist')).code).toBe('internal_error');
    const syntax = await sql`selec 1`.execute(store.db).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(toAppError(syntax).code).toBe('internal_error');
  });
});

describe('isConnectionError', () => {
  it('knows the network, pool and SQLSTATE shapes of "the database is away"', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      '08006',
      '08001',
      '57P01',
      '57P03',
      '57014',
    ])
      expect(isConnectionError(coded(code)), code).toBe(true);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionError(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isConnectionError(new AggregateError([coded('ECONNREFUSED')], 'connect failed'))).toBe(true);
    for (const code of ['23505', '42P01', '22001']) expect(isConnectionError(coded(code)), code).toBe(false);
    expect(isConnectionError(new Error('boom'))).toBe(false);
    expect(isConnectionError(null)).toBe(false);
  });
});
