import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** Per-request log lines only at info and below: at warn and above the hot path writes nothing. */
export function logsRequests(logger: FastifyBaseLogger): boolean {
  return logger.level === 'info' || logger.level === 'debug' || logger.level === 'trace';
}

/** A request's one line: `GET /v1/links 200 3.1 ms`, with the same facts as fields for log collectors. */
export function requestLine(request: FastifyRequest, reply: FastifyReply) {
  const responseTime = Math.round(reply.elapsedTime * 10) / 10;
  const { method, url } = request;
  const statusCode = reply.statusCode;
  return {
    details: { method, url, statusCode, responseTime },
    message: `${method} ${url} ${statusCode} ${responseTime} ms`,
  };
}

/**
 * Fastify's request logging made one line per request, written when the answer is sent (Fastify's own
 * writes "incoming request" and "request completed", two lines that a person has to pair by reqId).
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const { details, message } = requestLine(request, reply);
    if (error) reply.log.error({ ...details, err: error }, message);
    else reply.log.info(details, message);
  }
}

/** The apps' log controller: one line per request at info and below, none at warn and above. */
export function requestLogController(logger: FastifyBaseLogger): LogController {
  return new OneLineRequestLog({ disableRequestLogging: !logsRequests(logger) });
}
