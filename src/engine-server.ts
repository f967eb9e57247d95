import { composeEngine } from './compose/engine.js';
import type { EngineApp } from './engine/app.js';
import { type EngineConfig, parseEngineConfig } from './engine/config.js';
import { createLogger } from './logger.js';
import {
  closeOnceAndOnSignals,
  collectStartupGarbage,
  openServingStore,
  tuneV8ForServing,
} from './server-process.js';
import type { Store } from './store/database.js';

export interface RunningEngine {
  app: EngineApp;
  store: Store;
  config: EngineConfig;
  /** The address the engine listens on, e.g. http://127.0.0.1:3001. */
  url: string;
  close(): Promise<void>;
}

/**
 * `linkhop engine`'s process, as server.ts is the hosted service's: config in, store opened and migrated,
 * listening, closed on SIGTERM/SIGINT. Nothing here loads Fastify or Zod.
 */
export async function startEngineServer(env: NodeJS.ProcessEnv): Promise<RunningEngine> {
  tuneV8ForServing();
  const config = parseEngineConfig(env);
  const logger = createLogger(config);
  const store = await openServingStore(config.databaseUrl, config.sqliteCacheMb);
  const app = await composeEngine(config, store, logger);
  const url = await app.listen({ port: config.port, host: config.host });
  logger.info({ url, baseUrl: config.baseUrl }, 'linkhop engine listening');
  collectStartupGarbage();
  const close = closeOnceAndOnSignals(logger, app, store);
  return { app, store, config, url, close };
}
