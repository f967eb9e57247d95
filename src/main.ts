import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { type Config, parseConfig } from './config.js';
import type { CompiledDestination } from './core/resolve.js';
import { compileDestination } from './core/resolve.js';
import { createVisitorClassifier } from './core/visitor.js';
import { buildEngineApp } from './engine/app.js';
import { createEngineLinkRepo } from './engine/repo.js';
import { createEngineLinkService } from './engine/service.js';
import { createBearerCheck } from './http/bearer.js';
import { buildHostedApp } from './http/hosted-app.js';
import { createLinkRepo } from './links/repo.js';
import { loadPlatformTable } from './platform-table.js';
import { LruCache } from './redirect/lru-cache.js';
import { createNonceSource } from './redirect/nonce.js';
import { createVisitResponder } from './redirect/respond.js';
import { migrateToLatest, openStore, type Store } from './store/database.js';
import { pingStore } from './store/health.js';

/**
 * The composition root: config is parsed once here, every dependency is made here and handed down.
 * Nothing below this file reads the environment or holds module-level state.
 */

const LINK_CACHE_SIZE = 50_000;

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  config: Config;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  close(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: `linkhop-${config.mode}` } });
}

/** Builds the engine on an open store; the caller listens (tests use app.inject). */
export function composeEngine(config: Config, store: Store, logger: Logger): FastifyInstance {
  const table = loadPlatformTable(config.platformsFile);
  const repo = createEngineLinkRepo(store);
  const links = createEngineLinkService({
    repo,
    table,
    baseUrl: config.baseUrl,
    randomBytes: (size) => randomBytes(size),
    now: () => new Date(),
  });
  const loadCompiled = async (slug: string): Promise<CompiledDestination | undefined> => {
    const row = await repo.findBySlug(slug);
    return row && compileDestination(table, row.url);
  };
  return buildEngineApp({
    logger,
    ping: () => pingStore(store),
    links,
    authorize: createBearerCheck(config.apiToken),
    respondToVisit: createVisitResponder({
      classify: createVisitorClassifier(),
      nonce: createNonceSource(),
      redirectStatus: 301,
    }),
    cache: new LruCache(LINK_CACHE_SIZE),
    loadCompiled,
  });
}

/** Builds the hosted service on an open store. */
export function composeHosted(config: Config, store: Store, logger: Logger): FastifyInstance {
  const table = loadPlatformTable(config.platformsFile);
  return buildHostedApp({
    logger,
    ping: () => pingStore(store),
    redirect: {
      links: createLinkRepo(store),
      table,
      respondToVisit: createVisitResponder({
        classify: createVisitorClassifier(),
        nonce: createNonceSource(),
        redirectStatus: 302,
        redirectHeaders: { 'cache-control': 'private, max-age=0' },
      }),
      cache: new LruCache(LINK_CACHE_SIZE),
      defaultHost: new URL(config.baseUrl).host.replace(/:\d+$/, ''),
    },
  });
}

/** Parses config, opens and migrates the store, listens, and closes everything on SIGTERM/SIGINT. */
export async function startServer(env: NodeJS.ProcessEnv, mode: Config['mode']): Promise<RunningServer> {
  const config = parseConfig(env, mode);
  const logger = createLogger(config);
  const store = openStore(config.databaseUrl);
  await migrateToLatest(store);
  const app = mode === 'engine' ? composeEngine(config, store, logger) : composeHosted(config, store, logger);
  const url = await app.listen({ port: config.port, host: config.host });
  logger.info({ url, baseUrl: config.baseUrl }, `linkhop ${mode} listening`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
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
  return { app, store, config, url, close };
}
