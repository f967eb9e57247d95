import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { parseEngineConfig } from '../../src/engine/config.js';

/**
 * The engine reads its variables without Zod (it idles without it). Held here to config.ts's parseConfig
 * for the engine, value by value: the same settings, or the same refusal in the same words.
 */

type Outcome = { config: Record<string, unknown> } | { error: string; problems: string[] };

const ENGINE_FIELDS = [
  'port',
  'host',
  'baseUrl',
  'databaseUrl',
  'apiToken',
  'platformsFile',
  'escapeMatrixFile',
  'logLevel',
  'sqliteCacheMb',
] as const;

function outcome(parse: () => Record<string, unknown>): Outcome {
  try {
    const config = parse();
    return { config: Object.fromEntries(ENGINE_FIELDS.map((field) => [field, config[field]])) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { error: error.message, problems: error.problems };
  }
}

const engineOutcome = (env: NodeJS.ProcessEnv) =>
  outcome(() => parseEngineConfig(env) as unknown as Record<string, unknown>);
const zodOutcome = (env: NodeJS.ProcessEnv) =>
  outcome(() => parseConfig(env, 'engine') as unknown as Record<string, unknown>);

const VALUES: Record<string, (string | undefined)[]> = {
  PORT: [
    undefined,
    '',
    '0',
    '3001',
    '65535',
    '65536',
    '-1',
    '-0',
    ' 8080 ',
    '   ',
    '0x10',
    '1e3',
    '1.5',
    'abc',
    'Infinity',
    '80 80',
  ],
  HOST: [undefined, '', '127.0.0.1', '::', 'localhost'],
  BASE_URL: [
    undefined,
    '',
    'https://go.example.com',
    'https://go.example.com/',
    'https://go.example.com///',
    'http://localhost:3001',
    'HTTPS://GO.EXAMPLE.COM',
    ' https://go.example.com ',
    'https://go.exa\tmple.com',
    'https://user:secret@go.example.com',
    'https://go.example.com/path?q=1',
    'go.example.com',
    'https:go.example.com',
    'https:/go.example.com',
    'ftp://go.example.com',
    'javascript:alert(1)',
    'https://',
    'https://exa mple.com',
    'https://münchen.de',
    'not a url',
  ],
  DATABASE_URL: [
    undefined,
    '',
    'sqlite:./data/x.db',
    'sqlite::memory:',
    'postgres://u:p@h:5432/d',
    'postgresql://h/d',
    'mysql://u:secret@h/d',
    './data/x.db',
  ],
  API_TOKEN: [undefined, '', 'token'],
  PLATFORMS_FILE: [undefined, '', '/etc/platforms.json'],
  ESCAPE_MATRIX_FILE: [undefined, '', '/etc/matrix.json'],
  LOG_LEVEL: [undefined, '', 'info', 'debug', 'silent', 'INFO', 'verbose'],
  SQLITE_CACHE_MB: [undefined, '', '2', '16', '1024', '1', '1025', '1.5', '0x10', 'lots', ' 64 '],
};

describe('the engine configuration, read without Zod', () => {
  for (const [name, values] of Object.entries(VALUES)) {
    it(`${name}: the same setting or the same message as config.ts, for each value`, () => {
      for (const value of values) {
        const env = value === undefined ? {} : { [name]: value };
        expect(engineOutcome(env), `${name}=${JSON.stringify(value)}`).toEqual(zodOutcome(env));
      }
    });
  }

  it('several wrong variables: every problem, listed in config.ts order', () => {
    const env = { PORT: 'x', BASE_URL: 'nope', LOG_LEVEL: 'loud', SQLITE_CACHE_MB: '0' };
    const engine = engineOutcome(env);
    expect(engine).toEqual(zodOutcome(env));
    expect('problems' in engine && engine.problems).toHaveLength(4);
  });

  it('a bad DATABASE_URL is reported once the other variables are good, hiding its password', () => {
    const env = { DATABASE_URL: 'mysql://root:hunter2@db/links' };
    expect(engineOutcome(env)).toEqual(zodOutcome(env));
    expect(() => parseEngineConfig(env)).toThrow(/not "mysql:\/\/…"/);
    expect(engineOutcome({ ...env, PORT: 'x' })).toEqual(zodOutcome({ ...env, PORT: 'x' }));
  });

  it('gives the engine its defaults: port 3001, sqlite:./data/engine.db, BASE_URL from the port', () => {
    expect(parseEngineConfig({})).toEqual({
      mode: 'engine',
      port: 3001,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:3001',
      databaseUrl: 'sqlite:./data/engine.db',
      apiToken: undefined,
      platformsFile: undefined,
      escapeMatrixFile: undefined,
      logLevel: 'info',
      sqliteCacheMb: 16,
    });
    expect(parseEngineConfig({ PORT: '4123' }).baseUrl).toBe('http://localhost:4123');
  });

  it('reads only its own variables: a hosted-only variable, even a wrong one, does not stop the engine', () => {
    expect(() => parseEngineConfig({ SIGNUP_TIER: 'nonsense', ANALYTICS: 'maybe' })).not.toThrow();
  });
});
