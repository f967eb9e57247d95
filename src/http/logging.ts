import type { FastifyBaseLogger } from 'fastify';

/** Per-request log lines only at info and below: at warn and above the hot path writes nothing. */
export function logsRequests(logger: FastifyBaseLogger): boolean {
  return logger.level === 'info' || logger.level === 'debug' || logger.level === 'trace';
}
