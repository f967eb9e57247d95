import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Store } from '../../store/database.js';
import { createClickBuffer } from './click-buffer.js';
import { createClickSpill } from './click-spill.js';
import { clickWriterThreadFile, createClickThread } from './click-thread.js';

/**
 * Where visits are recorded. A running server hands them to a writer thread through shared memory, so the
 * thread that serves redirects never packs, aggregates or commits a click; an in-memory SQLite database
 * cannot be opened from another thread, and from the TypeScript sources (tests) there is no thread script,
 * so those write in-process.
 */
export function clickSink(
  config: Pick<Config, 'databaseUrl' | 'analytics' | 'spillDir' | 'sqliteCacheMb'>,
  store: Store,
  logger: Logger,
  onThread: boolean,
) {
  const file = clickWriterThreadFile();
  const inMemory = config.databaseUrl === 'sqlite::memory:';
  if (!onThread || !config.analytics || inMemory || !file) {
    const spill = createClickSpill({ dir: config.spillDir });
    return createClickBuffer({ store, enabled: config.analytics, logger, spill });
  }
  logger.info('clicks are written on their own thread');
  return createClickThread({
    file,
    databaseUrl: config.databaseUrl,
    ...(store.schema ? { schema: store.schema } : {}),
    spillDir: config.spillDir,
    sqliteCacheMb: config.sqliteCacheMb,
    logger,
  });
}
