import { ConfigError, shownValue } from '../config-error.js';

/**
 * The engine's own reading of the environment: only the variables it uses, with config.ts's defaults and
 * its messages word for word (test/engine/engine-config.test.ts holds the two side by side). config.ts
 * parses with Zod, which alone costs the engine about 14 MB at rest (docs/performance.md, "Memory").
 */

export const ENGINE_DEFAULT_PORT = 3001;
/** config.ts's SQLITE_CACHE_MB_DEFAULT (a constant there too; that file is not imported, for its Zod). */
const SQLITE_CACHE_MB_DEFAULT = 16;
const DEFAULT_DATABASE_URL = 'sqlite:./data/engine.db';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface EngineConfig {
  mode: 'engine';
  port: number;
  host: string;
  /** Origin without a trailing slash; shortUrl is built from it, never from the request. */
  baseUrl: string;
  databaseUrl: string;
  apiToken: string | undefined;
  platformsFile: string | undefined;
  escapeMatrixFile: string | undefined;
  logLevel: LogLevel;
  /** SQLite only: the connection's page cache ceiling in MB. */
  sqliteCacheMb: number;
}

const SQLITE_CACHE_MB_TEXT = 'SQLITE_CACHE_MB is a whole number of megabytes from 2 to 1024';
const BASE_URL_TEXT = 'BASE_URL must be an http(s) origin such as https://go.example.com';

/** Parses the engine's variables once; fails fast with every problem, each a sentence naming its variable. */
export function parseEngineConfig(env: NodeJS.ProcessEnv): EngineConfig {
  const problems: string[] = [];
  const given = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const refuse = (name: string, accepted: string) =>
    problems.push(`${name} must be ${accepted}${shownValue(env[name])}`);

  // The order of config.ts's schema, so that several problems are listed as it lists them.
  const port = wholeNumberIn(given('PORT'), 0, 65535, ENGINE_DEFAULT_PORT);
  if (port === null) refuse('PORT', 'a port number from 0 to 65535 (e.g. 3000)');
  const baseUrl = httpOrigin(given('BASE_URL'));
  if (baseUrl === null) problems.push(BASE_URL_TEXT);
  const logLevel = given('LOG_LEVEL') ?? 'info';
  if (!isLogLevel(logLevel)) refuse('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`);
  const sqliteCacheMb = wholeNumberIn(given('SQLITE_CACHE_MB'), 2, 1024, SQLITE_CACHE_MB_DEFAULT);
  if (sqliteCacheMb === null) problems.push(SQLITE_CACHE_MB_TEXT);
  if (problems.length > 0 || port === null || sqliteCacheMb === null || !isLogLevel(logLevel)) {
    throw new ConfigError(problems);
  }

  const databaseUrl = given('DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError([
      `DATABASE_URL must be sqlite:<path> (e.g. sqlite:./data/linkhop.db) or postgres://user:password@host:5432/database${shownValue(databaseUrl)}`,
    ]);
  }
  return {
    mode: 'engine',
    port,
    host: given('HOST') ?? '0.0.0.0',
    baseUrl: (baseUrl ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    apiToken: given('API_TOKEN'),
    platformsFile: given('PLATFORMS_FILE'),
    escapeMatrixFile: given('ESCAPE_MATRIX_FILE'),
    logLevel,
    sqliteCacheMb,
  };
}

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * `fallback` when unset; the number when `Number()` reads a whole number within bounds (as Zod's coerce
 * does: surrounding spaces, `0x10` and `1e3` are numbers, a blank string is 0); else null.
 */
function wholeNumberIn(value: string | undefined, min: number, max: number, fallback: number): number | null {
  if (value === undefined) return fallback;
  const number = Number(value);
  return Number.isInteger(number) && number >= min && number <= max ? number : null;
}

/**
 * BASE_URL as given (trimmed, tabs and newlines removed), when it is an http(s) URL written with `://`;
 * undefined when unset; null when refused. What Zod's `z.url({ protocol: /^https?$/ })` accepts.
 */
function httpOrigin(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^https?:\/\//i.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return trimmed.replace(/[\t\n\r]/g, '');
}
