import type { FastifyInstance } from 'fastify';
import { type Config, parseConfig } from './config.js';
import { type Composed, composeEngine, composeHosted, createLogger } from './main.js';
import { migrateToLatest, openStore, type Store } from './store/database.js';

/** The process around the composed app: config in, store opened and migrated, listening, signals out. */

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  config: Config;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  close(): Promise<void>;
}

/** Parses config, opens and migrates the store, listens, and closes everything on SIGTERM/SIGINT. */
export async function startServer(env: NodeJS.ProcessEnv, mode: Config['mode']): Promise<RunningServer> {
  const config = parseConfig(env, mode);
  const logger = createLogger(config);
  const store = openStore(config.databaseUrl);
  await migrateToLatest(store);
  const composed: Composed =
    mode === 'engine'
      ? (() => {
          const app = composeEngine(config, store, logger);
          return { app, close: () => app.close() };
        })()
      : await composeHosted(config, store, logger, { clickThread: true });
  if (config.allowPrivateWebhookTargets) {
    logger.warn(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=1: webhooks may target loopback and private addresses (development only)',
    );
  }
  const url = await composed.app.listen({ port: config.port, host: config.host });
  logger.info({ url, baseUrl: config.baseUrl }, `linkhop ${mode} listening`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await composed.close();
      await store.close();
    })();
    return closing;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      close().then(
        () => process.exit(0),
        (error) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { app: composed.app, store, config, url, close };
}
