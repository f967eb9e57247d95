import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/retry-after.js';
import { serverWithFastPath } from '../redirect/fast-path-server.js';
import { isConnectionError } from '../store/db-errors.js';
import { EngineError } from './errors.js';
import { createEngineFastPath } from './fast-path.js';
import { PayloadTooLarge } from './http/body.js';
import { createRequestLog } from './http/request-log.js';
import { routeOf } from './http/route.js';
import { sendJson } from './http/send.js';
import { answerRoute, type EngineRoutesDeps } from './routes.js';

export interface EngineAppDeps extends EngineRoutesDeps {
  logger: Logger;
}

/** The engine's server: listen, close, and the node:http server itself (tests read its timeouts). */
export interface EngineApp {
  readonly server: Server;
  /** Resolves with the first address listened on (e.g. http://127.0.0.1:3001), logging each one. */
  listen(options: { port: number; host: string }): Promise<string>;
  /** Stops taking connections, closes idle ones, and resolves once the open ones have ended. */
  close(): Promise<void>;
}

/** What Fastify answered (and the engine still does) to a request arriving while it closes. */
const CLOSING_BODY = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';

/**
 * The self-hosted engine's HTTP app on node:http: cached visits answered first by the fast path, then
 * its routes, its JSON error texts and its 404 page. No Fastify (and no Zod): about 22 MB less at rest
 * (docs/performance.md, "Memory"), for four routes that need no framework.
 */
export function buildEngineApp(deps: EngineAppDeps): EngineApp {
  const requestLog = createRequestLog(deps.logger);
  let closing = false;
  const server = serverWithFastPath(createEngineFastPath(deps))((req, res) => {
    const log = requestLog.begin(req, res);
    if (closing) {
      res.writeHead(503, { connection: 'close', 'content-type': 'application/json', 'content-length': '80' });
      res.end(CLOSING_BODY);
      return;
    }
    answerRoute(routeOf(req.method, req.url), req, res, deps).catch((error: unknown) => {
      if (res.headersSent) {
        log().error({ err: error }, 'engine request failed');
        res.destroy();
        return;
      }
      if (error instanceof EngineError) return sendJson(res, error.status, error.toBody());
      if (error instanceof PayloadTooLarge) return sendJson(res, 413, { error: 'Payload too large' });
      // The store is away: a 503 to retry, never a 500 (logged once by the pool's health tracker).
      if (isConnectionError(error)) {
        const retryAfter = { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
        return sendJson(res, 503, { error: 'Service unavailable' }, retryAfter);
      }
      log().error({ err: error }, 'engine request failed');
      return sendJson(res, 500, { error: 'Internal error' });
    });
  });

  return {
    server,
    listen({ port, host }) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const addresses = listeningAddresses(server.address() as AddressInfo);
          for (const address of addresses) deps.logger.info(`Server listening at ${address}`);
          resolve(addresses[0] as string);
        });
      });
    },
    close() {
      closing = true;
      if (!server.listening) return Promise.resolve();
      server.closeIdleConnections();
      return new Promise((resolve, reject) =>
        server.close((error) =>
          error && (error as { code?: string }).code !== 'ERR_SERVER_NOT_RUNNING' ? reject(error) : resolve(),
        ),
      );
    },
  };
}

/** Fastify's listening lines: every IPv4 interface for 0.0.0.0 (internal ones first), else the address. */
function listeningAddresses(address: AddressInfo): string[] {
  if (address.address.includes(':')) return [`http://[${address.address}]:${address.port}`];
  const hosts =
    address.address === '0.0.0.0'
      ? Object.values(networkInterfaces())
          .flatMap((entries) => entries ?? [])
          .filter((entry) => entry.family === 'IPv4')
          .sort((entry) => (entry.internal ? -1 : 1))
          .map((entry) => entry.address)
      : [address.address];
  return hosts.map((host) => `http://${host}:${address.port}`);
}
