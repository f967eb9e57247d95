import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import type { Composed } from './app.js';
import { composeEngine } from './compose/engine.js';
import { type Config, parseConfig } from './config.js';
import { createLogger } from './logger.js';
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
  // Measured on Node 20 (V8 11.3): in about one server start out of four, V8's allocation-site
  // pretenuring decides that node:http's per-request objects are long-lived and allocates them in the old
  // generation; what they point to then survives scavenges too, and the process settles into a state where
  // every request's objects are promoted and collected by full GCs (twice the CPU a redirect, p99 × 4).
  // Our long-lived objects are few and made at start-up; young-generation allocation suits the rest.
  setFlagsFromString('--no-allocation-site-pretenuring');
  // Measured on Node 20 (V8 11.3): with V8's default budget for inlining into one optimized function (920
  // bytes of bytecode), a redirect's optimized request handler runs out of budget part way through node's
  // own http and stream code, and where it runs out changes from start to start (setStreamTimeout, the
  // IncomingMessage constructor, resetSocketTimeout inlined or called). A larger budget: 0.3 to 1.0 µs
  // less CPU a hosted redirect on the serving thread, in each of nine pairs of fresh starts.
  setFlagsFromString('--max-inlined-bytecode-size-cumulative=3000');
  const config = parseConfig(env, mode);
  const logger = createLogger(config);
  const store = await openServingStore(config.databaseUrl, config.sqliteCacheMb);
  const composed: Composed =
    mode === 'engine'
      ? (() => {
          const app = composeEngine(config, store, logger);
          return { app, close: () => app.close() };
        })()
      : // Loaded only here: the engine never pays for the hosted service's modules.
        await (await import('./app.js')).composeHosted(config, store, logger, { clickThread: true });
  if (config.allowPrivateWebhookTargets) {
    logger.warn(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=1: webhooks may target loopback and private addresses (development only)',
    );
  }
  const url = await composed.app.listen({ port: config.port, host: config.host });
  logger.info({ url, baseUrl: config.baseUrl }, `linkhop ${mode} listening`);
  collectStartupGarbage();
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

/**
 * Serving statements are cut off after this long (the server cancels them): an API call meets a database
 * that stopped answering with a 503 within about 2 s instead of hanging. Migrations run on a store of
 * their own without it, since building an index on a large table may legitimately take minutes.
 */
const SERVING_STATEMENT_TIMEOUT_MS = 1500;

async function openServingStore(url: string, sqliteCacheMb: number): Promise<Store> {
  if (!url.startsWith('postgres')) {
    const store = openStore(url, { sqliteCacheMb });
    await migrateToLatest(store);
    return store;
  }
  const migrating = openStore(url, { maxConnections: 1 });
  try {
    await migrateToLatest(migrating);
  } finally {
    await migrating.close();
  }
  return openStore(url, { statementTimeoutMs: SERVING_STATEMENT_TIMEOUT_MS });
}

/**
 * One full collection a few seconds after the server listens. Start-up (modules compiled, migrations, route
 * schemas) leaves 10 to 15 MB of the heap's pages empty; V8 hands them back only once its memory reducer
 * judges the process idle, which a server with timers often is not for minutes (measured: heap reserved
 * 45 MB for 31 MB used, 45 s after start, in two starts out of three). Once, off the request path: the
 * next request may wait for it, no later one does.
 */
const STARTUP_SETTLE_MS = 5_000;

function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (typeof gc !== 'function') return;
  setTimeout(gc, STARTUP_SETTLE_MS).unref();
}
