import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Store } from '../../store/database.js';
import { clickhouseBufferOptions } from '../clickhouse/batching.js';
import type { AnalyticsStore } from '../repo.js';
import { createClickBuffer } from './click-buffer.js';
import { createClickSpill } from './click-spill.js';
import { clickWriterThreadFile, createClickThread } from './click-thread.js';

/** With ANALYTICS_URL: where clicks go instead of the main database, and whom the thread tells of its writes. */
export interface ClickhouseSink {
  url: string;
  /** The in-process writer's store (the thread opens its own client on `url`). */
  store: Pick<AnalyticsStore, 'writeClicks' | 'pruneBatchIds'>;
  /** The writer thread's writes: true after one went through, false after one failed for want of the server. */
  reached(up: boolean): void;
}

/**
 * Where visits are recorded. A running server hands them to a writer thread through shared memory, so the
 * thread that serves redirects never packs, aggregates or commits a click; an in-memory SQLite database
 * cannot be opened from another thread, and from the TypeScript sources (tests) there is no thread script,
 * so those write in-process. With ANALYTICS_URL both write to ClickHouse, every batch under an id, with the
 * same memory bound, spill and replay as on the main database.
 */
export function clickSink(
  config: Pick<Config, 'databaseUrl' | 'analytics' | 'spillDir' | 'sqliteCacheMb'>,
  store: Store,
  logger: Logger,
  onThread: boolean,
  clickhouse?: ClickhouseSink,
) {
  const file = clickWriterThreadFile();
  const inMemory = config.databaseUrl === 'sqlite::memory:';
  if (!onThread || !config.analytics || inMemory || !file) {
    const spill = createClickSpill({ dir: config.spillDir });
    return createClickBuffer({
      store,
      enabled: config.analytics,
      logger,
      spill,
      ...(clickhouse ? clickhouseBufferOptions(clickhouse.store) : {}),
    });
  }
  logger.info(
    clickhouse
      ? 'clicks are written to ClickHouse on their own thread'
      : 'clicks are written on their own thread',
  );
  return createClickThread({
    file,
    databaseUrl: config.databaseUrl,
    ...(store.schema ? { schema: store.schema } : {}),
    ...(clickhouse ? { analyticsUrl: clickhouse.url, onAnalytics: clickhouse.reached } : {}),
    spillDir: config.spillDir,
    sqliteCacheMb: config.sqliteCacheMb,
    logger,
  });
}
