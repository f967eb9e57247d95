import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/**
 * What both servers' processes do around their apps (server.ts for `linkhop serve`, engine-server.ts for
 * `linkhop engine`): V8 flags, one collection after start, shutdown on a signal. Apart
 * from server.ts so that the engine loads no Zod (config.ts) on its way to these, and apart from the stores so
 * that it loads no Kysely (the hosted store opens in store/serving-store.ts).
 */

/** V8 flags measured to suit a server; set before the app's code is compiled. */
export function tuneV8ForServing(): void {
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
}

/**
 * The server's close: the app (its requests finish), then the store, once however often it is asked; a
 * SIGTERM or SIGINT asks too and ends the process with its outcome.
 */
export function closeOnceAndOnSignals(
  logger: Logger,
  app: { close(): Promise<unknown> },
  store: { close(): Promise<void> },
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
      await store.close();
    })();
    return closing;
  };
  closeOnSignals(logger, close);
  return close;
}

/** SIGTERM or SIGINT: log, close, exit 0 (1 when closing failed). */
function closeOnSignals(logger: Logger, close: () => Promise<void>): void {
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
}

/**
 * One full collection a few seconds after the server listens. Start-up (modules compiled, migrations, route
 * schemas) leaves 10 to 15 MB of the heap's pages empty; V8 hands them back only once its memory reducer
 * judges the process idle, which a server with timers often is not for minutes (measured: heap reserved
 * 45 MB for 31 MB used, 45 s after start, in two starts out of three). Once, off the request path: the
 * next request may wait for it, no later one does.
 */
const STARTUP_SETTLE_MS = 5_000;

export function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (typeof gc !== 'function') return;
  setTimeout(gc, STARTUP_SETTLE_MS).unref();
}
