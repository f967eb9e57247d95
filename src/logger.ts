import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** The process's logger: JSON lines at LOG_LEVEL, each naming the service that wrote it. */
export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: `linkhop-${config.mode}` } });
}
