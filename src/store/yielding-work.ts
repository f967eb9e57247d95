import { sql, type Transaction } from 'kysely';
import { type Dialect, type Executor, SQLITE_BUSY_TIMEOUT_MS, unitOfWork } from './database.js';
import type { Database } from './schema.js';

/** Tries before a yielding unit of work waits like any other (about 10 s of a writer never letting go). */
const ATTEMPTS = 200;
const PAUSE_MS = { first: 2, most: 100 };

/** SQLite's answer to a write that would have to wait for another connection's lock (any extended code). */
const isBusy = (error: unknown) =>
  typeof (error as { code?: unknown })?.code === 'string' &&
  (error as { code: string }).code.startsWith('SQLITE_BUSY');

/**
 * A unit of work for a background job that must never hold the event loop waiting for a lock. On SQLite,
 * better-sqlite3 waits synchronously (busy_timeout) while another connection, the click writer's thread
 * above all, holds the write lock, and every request of the server waits with it: the destination
 * checker's writes held the hosted 302's p99 at twice its figure that way (bench/health-redirects.mjs).
 * Here the connection, taken alone, asks with busy_timeout 0: a busy answer rolls the transaction back
 * (nothing was written: the first write is what needs the lock), gives the connection back to the
 * requests, and tries again after a pause on the timer. After ATTEMPTS it waits like any other write
 * rather than starve. `work` may run more than once, so it must only write through `trx`.
 *
 * PostgreSQL waits for locks on its own socket, never on the event loop: the plain unit of work.
 */
export function yieldingUnitOfWork(db: Executor, dialect: Dialect, options: { durable?: boolean } = {}) {
  if (dialect !== 'sqlite') return unitOfWork(db);
  // Not durable: the commit skips its fsync (synchronous NORMAL in WAL: still atomic, but a power cut may
  // roll the last commits back). For work that is done again when lost, so the fsync is not worth the
  // event loop's milliseconds; every other write of the connection stays FULL.
  const relaxed = options.durable === false;
  const attempt = <T>(work: (trx: Transaction<Database>) => Promise<T>) =>
    db.connection().execute(async (connection) => {
      await sql.raw('pragma busy_timeout = 0').execute(connection);
      if (relaxed) await sql.raw('pragma synchronous = NORMAL').execute(connection);
      try {
        return await connection.transaction().execute(work);
      } finally {
        if (relaxed) await sql.raw('pragma synchronous = FULL').execute(connection);
        await sql.raw(`pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`).execute(connection);
      }
    });
  return async <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> => {
    let pause = PAUSE_MS.first;
    for (let tries = 1; tries < ATTEMPTS; tries++) {
      try {
        return await attempt(work);
      } catch (error) {
        if (!isBusy(error)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, PAUSE_MS.most);
    }
    return db.transaction().execute(work);
  };
}
