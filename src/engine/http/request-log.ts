import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/**
 * The engine's request lines, as src/http/logging.ts writes them for the hosted service (through Fastify's
 * LogController): one line per request when it is answered, `GET /api/links/x 200 1.2 ms` with method,
 * url, statusCode and responseTime as fields, from a child logger carrying the request's `reqId`; none
 * at warn and above. Requests the fast path answers are not logged, as before.
 */
export interface RequestLog {
  /** The request's logger (its reqId bound), and its line written when the answer is finished. */
  begin(req: IncomingMessage, res: ServerResponse): () => Logger;
}

/** Fastify's request ids: `req-1`, `req-2`, ... in base 36, wrapping below 2^31. */
function createRequestIds(): () => string {
  let next = 0;
  return () => {
    next = (next + 1) & 0x7fffffff;
    return `req-${next.toString(36)}`;
  };
}

export function createRequestLog(logger: Logger): RequestLog {
  const logsRequests = logger.level === 'info' || logger.level === 'debug' || logger.level === 'trace';
  const nextId = createRequestIds();
  return {
    begin(req, res) {
      const reqId = nextId();
      let child: Logger | undefined;
      const log = () => {
        child ??= logger.child({ reqId });
        return child;
      };
      if (logsRequests) {
        const started = performance.now();
        res.once('finish', () => {
          const responseTime = Math.round((performance.now() - started) * 10) / 10;
          const { method, url } = req;
          const { statusCode } = res;
          log().info(
            { method, url, statusCode, responseTime },
            `${method} ${url} ${statusCode} ${responseTime} ms`,
          );
        });
      }
      return log;
    },
  };
}
