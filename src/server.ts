import type { FastifyInstance } from 'fastify';
import type { Composed } from './app.js';
import { type Config, parseConfig } from './config.js';
import { createLogger } from './logger.js';
import { closeOnceAndOnSignals, collectStartupGarbage, tuneV8ForServing } from './server-process.js';
import type { Store } from './store/database.js';
import { openServingStore } from './store/serving-store.js';

/**
 * The hosted service's process around its composed app: config in, store opened and migrated, listening,
 * signals out. The engine has its own (engine-server.ts), which loads neither Fastify nor Zod.
 */

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  config: Config;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  close(): Promise<void>;
}

/** Parses config, opens and migrates the store, listens, and closes everything on SIGTERM/SIGINT. */
export async function startServer(env: NodeJS.ProcessEnv): Promise<RunningServer> {
  const mode = 'hosted';
  tuneV8ForServing();
  const config = parseConfig(env, mode);
  const logger = createLogger(config);
  const store = await openServingStore(config.databaseUrl, config.sqliteCacheMb);
  // Loaded only here, after the flags above.
  const composed: Composed = await (await import('./app.js')).composeHosted(config, store, logger, {
    clickThread: true,
  });
  if (config.allowPrivateWebhookTargets) {
    logger.warn(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=1: webhooks may target loopback and private addresses (development only)',
    );
  }
  const url = await composed.app.listen({ port: config.port, host: config.host });
  logger.info({ url, baseUrl: config.baseUrl }, `linkhop ${mode} listening`);
  collectStartupGarbage();
  const close = closeOnceAndOnSignals(logger, composed, store);
  return { app: composed.app, store, config, url, close };
}
