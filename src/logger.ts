import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Fields a person at a terminal does not need on every line: pino's own, and a request line's, whose
 * message already says them (`GET /v1/links 200 3.1 ms`).
 */
const PRETTY_IGNORE = 'pid,hostname,service,reqId,method,url,statusCode,responseTime';

export interface LoggerOptions {
  /** Whether standard output is a terminal (a person reads it): pretty lines then, JSON otherwise. */
  tty?: boolean;
  /** Where lines go; standard output by default. */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/**
 * The process's logger at LOG_LEVEL, each line naming the service that wrote it: JSON lines for log
 * collectors, or, when standard output is a terminal, pino-pretty's coloured one-line form. pino-pretty
 * (and its dependencies, a few MB) is loaded only then: a server under a supervisor never pays for it.
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'mode'>, options: LoggerOptions = {}): Logger {
  const base = { level: config.logLevel, base: { service: `linkhop-${config.mode}` } };
  const tty = options.tty ?? process.stdout.isTTY === true;
  if (!tty) return options.destination ? pino(base, options.destination) : pino(base);
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pino(
    base,
    pretty({
      colorize: options.destination === undefined,
      translateTime: 'SYS:HH:MM:ss',
      ignore: PRETTY_IGNORE,
      singleLine: true,
      // Synchronous, as pino's own JSON destination is: a line is out before the process exits.
      sync: true,
      ...(options.destination ? { destination: options.destination } : {}),
    }),
  );
}
