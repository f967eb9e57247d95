import { composeEngine } from './compose/engine.js';
import type { EngineApp } from './engine/app.js';
import { type EngineConfig, parseEngineConfig } from './engine/config.js';
import { type EngineStore, openEngineStore } from './engine/store.js';
import { createLogger } from './logger.js';
import { closeOnceAndOnSignals, collectStartupGarbage, tuneV8ForServing } from './server-process.js';
import { SERVING_STATEMENT_TIMEOUT_MS } from './store/connections.js';
import { migrateApart } from './store/migrate-apart.js';

export interface RunningEngine {
  app: EngineApp;
  store: EngineStore;
  config: EngineConfig;
  /** The address the engine listens on, e.g. http://127.0.0.1:3001. */
  url: string;
  close(): Promise<void>;
}

/**
 * `linkhop engine`'s process, as server.ts is the hosted service's: config in, store migrated and opened,
 * listening, closed on SIGTERM/SIGINT. Nothing here loads Fastify, Zod or Kysely.
 */
export async function startEngineServer(env: NodeJS.ProcessEnv): Promise<RunningEngine> {
  tuneV8ForServing();
  const config = parseEngineConfig(env);
  const logger = createLogger(config);
  // Migrated in a process of its own: this one never loads Kysely (store/migrate-apart.ts).
  await migrateApart(config.databaseUrl);
  const store = openEngineStore(config.databaseUrl, {
    sqliteCacheMb: config.sqliteCacheMb,
    statementTimeoutMs: SERVING_STATEMENT_TIMEOUT_MS,
  });
  const app = await composeEngine(config, store, logger);
  const url = await app.listen({ port: config.port, host: config.host });
  logger.info({ url, baseUrl: config.baseUrl }, 'linkhop engine listening');
  collectStartupGarbage();
  const close = closeOnceAndOnSignals(logger, app, store);
  return { app, store, config, url, close };
}
